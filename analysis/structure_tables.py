"""Structural targets of the five papers (docs/targets.md §2) against flitsim's topologies.

    python analysis/structure_tables.py [--only IS-]

Prints "ID | quantity | paper | flitsim | match" for every structural target that a topology
builder can answer: counts, radix, diameter, path diversity, the 4-ML3B table, costs. A
mismatch is either a paper erratum (named in the note, see docs/targets.md §3) or a bug.
"""
from __future__ import annotations

import argparse
import ast
import functools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The installed flitsim (its engine is compiled: a checkout's src/ alone cannot import; putting
# it first hid a non-editable install and failed).
from flitsim import topology as T  # noqa: E402


def paper(name: str) -> str:
    return str(ROOT / "configs" / "papers" / f"{name}.toml")


def _config(cfg: str):
    # a shipped config name, or an inline [topology] dict written as a Python literal
    return ast.literal_eval(cfg) if cfg.startswith("{") else paper(cfg)


@functools.lru_cache(maxsize=None)
def describe(cfg: str, paths: bool = False) -> dict:
    return T.describe(_config(cfg), paths=paths)


@functools.lru_cache(maxsize=None)
def build(cfg: str) -> T.TopologyTables:
    return T.build(_config(cfg))


def truncate2(x: float) -> float:
    return int(x * 100 + 1e-9) / 100  # the paper truncates to 2 decimals (D2-S4)


def rows():
    """(id, quantity, paper value, thunk computing flitsim's value, note)."""
    r = []
    # ---- P0 dragonfly ----
    r += [("DF-S1", "(2,4,2) routers / nodes / radix / global links",
           (36, 72, 7, 36), lambda: tuple(describe("valiant-df-p2")[k] for k in ("routers", "nodes", "radix"))
           + (describe("valiant-df-p2")["links_by_class"]["global"],), ""),
          ("DF-S2", "(2,3,2) nodes / routers", (42, 21),
           lambda: (describe("valiant-df-2-3-2")["nodes"], describe("valiant-df-2-3-2")["routers"]), ""),
          ("DF-S3", "(8,16,8) nodes / routers / radix / N_r", (16512, 2064, 31, 16512),
           lambda: (describe("valiant-df-p8")["nodes"], describe("valiant-df-p8")["routers"],
                    describe("valiant-df-p8")["radix"], 2 * describe("valiant-df-p8")["links_by_class"]["global"]), "")]
    for p, n, s in zip(range(2, 9), [72, 342, 1056, 2550, 5256, 9702, 16512],
                       [36, 114, 264, 510, 876, 1386, 2064]):
        r.append((f"DF-S5 p={p}", "nodes / switches", (n, s),
                  lambda p=p: (describe(f"valiant-df-p{p}")["nodes"], describe(f"valiant-df-p{p}")["routers"]), ""))

    def palmtree_pairs():
        t = build("valiant-df-p4")
        G = t.attrs["groups"]
        off = t.tables["gateway_offset"]
        counts = {int(off[k + 1] - off[k]) for k in range(G * G) if k // G != k % G}
        return counts
    r.append(("DF-S6", "links per ordered group pair (palmtree, p=4)", {1}, palmtree_pairs, ""))
    # ---- P1 XGFT ----
    for i, (name, n, s) in enumerate([("2-12-6", 144, 18), ("2-24-12", 288, 36), ("3-12-8-12-4", 1152, 240),
                                      ("3-12-16-12-8", 2304, 480), ("3-12-24-12-12", 3456, 720),
                                      ("4-12-12-6-12-12-3", 10368, 3024),
                                      ("4-12-12-12-12-12-6", 20736, 6048)], 1):
        r.append((f"NZ-S{i}", f"xgft({name.replace('-', ',')}) endpoints / switches", (n, s),
                  lambda name=name: (describe(f"noise-xgft-{name}")["nodes"],
                                     describe(f"noise-xgft-{name}")["routers"]), ""))
    # ---- P2 Table 2 and Table 4 ----
    table2 = [("IS-1", "n-a2a", 12000, 1200, 17400, 0.97), ("IS-2", "n-rc", 12250, 1750, 28875, 0.94),
              ("IS-3", "n-em", 12000, 1200, 17400, 0.97), ("IS-4", "n-ft", 12000, 1500, 24000, 1.0),
              ("IS-5", "nr-a2a", 12000, 1200, 15000, 0.83), ("IS-6", "nr-rc", 12000, 1200, 16200, 0.54),
              ("IS-7", "nr-em", 12000, 1200, 15000, 0.42), ("IS-8", "nr-ft", 12012, 1100, 16000, 0.67),
              ("IS-9", "nl-a2a", 12000, 1200, 18000, 1.0), ("IS-10", "nl-rc", 12096, 1512, 18144, 0.6),
              ("IS-11", "nl-em", 12000, 1200, 17400, 0.97), ("IS-12", "nl-ft", 12012, 1100, 16000, 0.67),
              ("IS-13", "nrl-a2a", 12000, 1500, 24000, 1.33), ("IS-14", "nrl-rc", 12000, 1500, 24000, 0.8),
              ("IS-15", "nrl-em", 12000, 1500, 24000, 1.33), ("IS-16", "nrl-ft", 12000, 1500, 24000, 1.0),
              ("IS-17", "rl-a2a", 13500, 1500, 22500, 1.11), ("IS-18", "rl-rc", 10500, 1500, 24000, 0.91),
              ("IS-19", "rl-em", 12000, 1500, 24000, 0.67), ("IS-20", "rl-ft", 12000, 1500, 24000, 1.0)]
    notes = {"IS-7": "gap-2 links: CODES rule gives 9,600 (docs/targets.md §3.3 item 3)",
             "IS-19": "gap-2 links: CODES rule gives 13,100 (§3.3 item 3)",
             "IS-8": "12,012 nodes is an erratum: 500 x 24 = 12,000 (§2.3)",
             "IS-12": "12,012 nodes is an erratum: 500 x 24 = 12,000 (§2.3)"}
    for tid, cfg, n, rt, lk, bal in table2:
        r.append((tid, f"iso-{cfg} nodes / routers / links / balance", (n, rt, lk, bal),
                  lambda cfg=cfg: (describe(f"iso-{cfg}")["nodes"], describe(f"iso-{cfg}")["routers"],
                                   describe(f"iso-{cfg}")["links"], round(describe(f"iso-{cfg}")["balance"], 2)),
                  notes.get(tid, "")))
    r.append(("IS-20", "iso-rl-ft nodes per leaf", 24, lambda: int(build("iso-rl-ft").terminals().max()),
              "erratum: same tree as IS-4, 20 per leaf (§2.3)"))
    costs = {"n": (31920, 44765, 36360, 43920), "nr": (29308, 28104, 34968, 31280),
             "nl": (31920, 35683, 36360, 31280), "nrl": (41400, 37620, 47700, 43920),
             "rl": (40916, 37620, 47700, 43920)}
    cost_notes = {("n", "a2a"): "Table 4 implies 20 local ports, Table 2 19 (§3.3 item 6)",
                  ("nr", "a2a"): "not reproducible from any natural split (§3.3 item 6)",
                  ("rl", "a2a"): "not reproducible from any natural split (§3.3 item 6)",
                  ("nr", "em"): "follows the gap-2 link count (§3.3 item 3)",
                  ("rl", "em"): "follows the gap-2 link count (§3.3 item 3)"}
    for i, (c, vals) in enumerate(costs.items(), 1):
        for topo, v in zip(("a2a", "rc", "em", "ft"), vals):
            r.append((f"CO-{i}", f"iso-{c}-{topo} cost", v,
                      lambda c=c, topo=topo: round(describe(f"iso-{c}-{topo}")["cost"]),
                      cost_notes.get((c, topo), "")))
    # ---- P3 diameter-two ----
    r += [("D2-S1", "SF q=13 routers / network radix / links", (338, 19, 3211),
           lambda: (describe("d2-slimfly-q13-p9")["routers"], build("d2-slimfly-q13-p9").attrs["network_radix"],
                    describe("d2-slimfly-q13-p9")["links"]), ""),
          ("D2-S2", "SF q=13 p=9 nodes / radix", (3042, 28),
           lambda: (describe("d2-slimfly-q13-p9")["nodes"], describe("d2-slimfly-q13-p9")["radix"]), ""),
          ("D2-S3", "SF q=13 p=10 nodes / radix", (3380, 29),
           lambda: (describe("d2-slimfly-q13-p10")["nodes"], describe("d2-slimfly-q13-p10")["radix"]), ""),
          ("D2-S4", "SF q=13 ports / links per endpoint (p=10, p=9)", (2.90, 1.95, 3.11, 2.05),
           lambda: tuple(truncate2(describe(c)[k])
                         for c in ("d2-slimfly-q13-p10", "d2-slimfly-q13-p9")
                         for k in ("ports_per_node", "links_per_node")), "paper truncates"),
          ("D2-S6", "SF q=23 path diversity mean / max", (1.1, 8),
           lambda: (round(describe("{'kind': 'slimfly', 'q': 23}", True)["path_diversity"]["mean"], 1),
                    describe("{'kind': 'slimfly', 'q': 23}", True)["path_diversity"]["max"]), ""),
          ("D2-S7", "SF q=13 path histogram", {1: 52728, 3: 1014},
           lambda: describe("d2-slimfly-q13-p9", True)["path_diversity"]["histogram"], "[I] value"),
          ("D2-S9", "MLFM h=15 nodes / routers / radix", (3600, 360, 30),
           lambda: (describe("d2-mlfm-h15")["nodes"], describe("d2-mlfm-h15")["routers"],
                    describe("d2-mlfm-h15")["radix"]), ""),
          ("D2-S10", "MLFM h=15 path histogram", {1: 27000, 15: 1680},
           lambda: describe("d2-mlfm-h15", True)["path_diversity"]["histogram"], ""),
          ("D2-S11", "OFT k=12 R_L / routers / nodes / radix", (133, 399, 3192, 24),
           lambda: (build("d2-oft-k12").attrs["routers_per_level"], describe("d2-oft-k12")["routers"],
                    describe("d2-oft-k12")["nodes"], describe("d2-oft-k12")["radix"]), ""),
          ("D2-S12", "4-ML3B table rows 0..12",
           "9,10,11,12|9,0,1,2|9,3,4,5|9,6,7,8|10,0,3,6|10,1,4,7|10,2,5,8|11,0,4,8|11,1,5,6|11,2,3,7|"
           "12,0,5,7|12,1,3,8|12,2,4,6",
           lambda: "|".join(",".join(map(str, row)) for row in
                            build("{'kind': 'oft', 'k': 4}").tables["ml3b"].reshape(-1, 4).tolist()), ""),
          ("D2-S13", "OFT k=12 path histogram (k paths for (0,i)-(2,i))", {1: 35112, 12: 133},
           lambda: describe("d2-oft-k12", True)["path_diversity"]["histogram"], ""),
          ("D2-S15", "radix 64: OFT k=32 / MLFM h=32 / SF q=29 p=21 nodes", (63552, 33792, 35322),
           lambda: (build("{'kind': 'oft', 'k': 32}").num_nodes, build("{'kind': 'mlfm', 'h': 32}").num_nodes,
                    build("{'kind': 'slimfly', 'q': 29, 'p': 21}").num_nodes), ""),
          ("D2-S18", "bisection per endpoint MLFM / SF p=9 / SF p=10 (heuristic)", (0.5, 0.71, 0.67),
           lambda: tuple(round(T.bisection(paper(c))["per_node"], 2)
                         for c in ("d2-mlfm-h15", "d2-slimfly-q13-p9", "d2-slimfly-q13-p10")),
           "METIS vs spectral+swaps: ±0.1 expected")]
    # ---- P4 HyperX ----
    for tid, widths, terms, n in [("HX-S1", [22, 22], 22, 10648), ("HX-S2", [17, 17, 17], 16, 78608),
                                  ("HX-S3", [14, 14, 14, 13], 13, 463736)]:
        cfg = repr({"kind": "hyperx", "widths": widths, "terminals": terms})
        r.append((tid, f"{'x'.join(map(str, widths))} x{terms} nodes / radix", (n, 64),
                  lambda cfg=cfg: (build(cfg).num_nodes, int(build(cfg).radix().max())), ""))
    r.append(("HX-S4", "8x8x8 x8 routers / nodes / radix / links / diameter", (512, 4096, 29, 5376, 3),
              lambda: tuple(describe("hyperx-8x8x8")[k] for k in ("routers", "nodes", "radix", "links", "diameter")),
              ""))
    return r


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="substring of the IDs to show (e.g. IS-, D2-)")
    args = ap.parse_args(argv)
    out = ["| ID | quantity | paper | flitsim | match | note |", "|---|---|---|---|---|---|"]
    mismatches = 0
    for tid, what, want, get, note in rows():
        if args.only and args.only not in tid:
            continue
        got = get()
        ok = got == want
        mismatches += not ok
        out.append(f"| {tid} | {what} | {want} | {got} | {'yes' if ok else 'no'} | {note} |")
    print("\n".join(out))
    print(f"\n{len(out) - 2} targets, {mismatches} mismatches (each should have an erratum note)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
