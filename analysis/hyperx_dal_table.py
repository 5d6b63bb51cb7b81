"""Regenerates the table of docs/routing.md "`dal`": accepted throughput at full offered load of
DAL next to DimWAR and OmniWAR, on the HyperX study's quick network (configs/papers/
hyperx-dimwar.toml as `flitsim reproduce hyperx-dimwar --quick` sizes it: 4x4x4, 4 terminals,
warmup and measure 2,000 cycles; router.preset = "hyperx-paper").

    python analysis/hyperx_dal_table.py        # 18 runs, a few minutes on one core

Prints the Markdown rows (paste them between the table's header and the text after it), then
the line on a smaller router that follows the table."""
import pathlib
import sys
import tomllib

import flitsim

ROOT = pathlib.Path(__file__).resolve().parents[1]
PATTERNS = {"UR": {"pattern": "uniform"}, "BC": {"pattern": "bitcomp"}, "URBy": {"pattern": "urb", "dims": [1]},
            "S2": {"pattern": "swap2"}, "DCR": {"pattern": "dcr"}}
ROUTINGS = ("dal", "dimwar", "omniwar")


def base() -> dict:
    cfg = tomllib.loads((ROOT / "configs/papers/hyperx-dimwar.toml").read_text())
    cfg.pop("sweep")
    cfg["topology"].update(widths=[4, 4, 4], terminals=4)  # the study's quick sizes
    cfg["sim"].update(warmup=2000, measure=2000)
    return cfg


def accepted(pattern: dict, algorithm: str) -> float:
    cfg = base()
    cfg["routing"] = {"algorithm": algorithm}
    cfg["traffic"] = {**cfg["traffic"], **pattern, "load": 1.0}
    return flitsim.run(cfg, backend="cpu").accepted


# The same pattern on a router with fewer, shorter VCs, where the escape rule (an adaptive VC
# must be free with room for the whole packet) costs DAL more.
SMALL = {"topology": {"kind": "hyperx", "widths": [4, 4, 4], "terminals": 4},
         "router": {"vcs": 4, "buffer": 16, "latency": 1}, "channels": {"latency": 1},
         "traffic": {"pattern": "bitcomp", "load": 1.0, "packet_size": 4},
         "sim": {"warmup": 1000, "measure": 2000, "seed": 1, "drain_limit": 1}}


def small(algorithm: str) -> float:
    return flitsim.run({**SMALL, "routing": {"algorithm": algorithm}}, backend="cpu").accepted


def main():
    for label, pattern in PATTERNS.items():
        print(f"{label}", file=sys.stderr, flush=True)
        cells = " | ".join(f"{accepted(pattern, a):.3f}" for a in ROUTINGS)
        print(f"| {label} | {cells} |", flush=True)
    print(f"    DAL {small('dal'):.3f}, DimWAR {small('dimwar'):.3f}, DOR {small('dor'):.3f}")


if __name__ == "__main__":
    import argparse
    argparse.ArgumentParser(description="Rows of docs/routing.md's DAL table (18 runs, a few "
                            "minutes on one core).").parse_args()
    main()
