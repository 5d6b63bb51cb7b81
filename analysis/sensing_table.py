"""Regenerates the table of docs/routing.md "What the WARs sense": DimWAR and OmniWAR accepted
throughput at full load with routing.sensing = "port" and "class".

    python analysis/sensing_table.py        # about 3 minutes on one core

Prints the Markdown rows; paste them between the table's header and the text after it."""
import sys

import flitsim

SMALL = {"topology": {"kind": "hyperx", "widths": [4, 4, 4], "terminals": 4}, "router": {"vcs": 6},
         "sim": {"warmup": 1000, "measure": 1000, "seed": 1, "drain_limit": 1}}
STUDY = {"topology": {"kind": "hyperx", "widths": [4, 4, 4], "terminals": 4},
         "router": {"preset": "hyperx-paper"}, "channels": {"latency": 50, "terminal": 5},
         "traffic": {"packet_sizes": [1, 16]},
         "sim": {"warmup": 3000, "measure": 3000, "seed": 1, "drain_limit": 1000}}
ROWS = [("4×4×4 HyperX, 4 terminals, `vcs = 6`, warmup/measure 1,000", SMALL, "bitcomp", "omniwar"),
        ("4×4×4, 4 terminals, `preset = \"hyperx-paper\"`, 50-cycle channels (the quick study)", STUDY,
         "bitcomp", "omniwar"),
        ("same", STUDY, "bitcomp", "dimwar"), ("same", STUDY, "dcr", "omniwar"),
        ("same", STUDY, "swap2", "omniwar"), ("same", STUDY, "uniform", "omniwar"),
        ("same", STUDY, "uniform", "dimwar")]
LABEL = {"bitcomp": "BC", "dcr": "DCR", "swap2": "S2", "uniform": "UR",
         "omniwar": "OmniWAR", "dimwar": "DimWAR"}


def accepted(base, pattern, algorithm, sensing):
    cfg = {k: dict(v) for k, v in base.items()}
    cfg["routing"] = {"algorithm": algorithm, "sensing": sensing}
    cfg["traffic"] = {**cfg.get("traffic", {}), "pattern": pattern, "load": 1.0}
    return flitsim.run(cfg, backend="cpu").accepted


def main():
    for i, (name, base, pattern, algorithm) in enumerate(ROWS):
        print(f"row {i + 1} of {len(ROWS)}", file=sys.stderr)
        port, cls = (accepted(base, pattern, algorithm, s) for s in ("port", "class"))
        print(f"| {name} | {LABEL[pattern]} | {LABEL[algorithm]} | {port:.3f} | {cls:.3f} |")


if __name__ == "__main__":
    import argparse
    argparse.ArgumentParser(description="Rows of docs/routing.md's table \"What the WARs sense\" "
                            "(about 3 minutes on one core).").parse_args()
    main()
