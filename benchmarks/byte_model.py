"""Byte-count model of one simulated cycle: device memory per router/port/node and a floor on
the time per cycle from memory bandwidth (issue 6: "count the bytes a cycle must move").

Bytes a cycle must touch at least, from the engine's state layout (cuda/state.cuh):
  per port:      its input ring slot (8 B flit), its credit ring slot (4 B) and its occupied-VC
                 mask (8 B), read every cycle whether or not anything arrives;
  per node:      the source-queue scan pointer and current packet (12 B) and the generation draw;
  per flit-hop:  ring write + read (16 B), VC buffer write + read (8 B: a buffered flit is
                 4 B, cuda/flit.cuh), VC occupancy and mask updates (16 B), credit ring write
                 + read and credit counter (12 B): ~52 B;
  per packet-hop (head only): destination, route state and VC allocation (~48 B).
Flit-hops per cycle = nodes x load x (router hops + 1), packet-hops = that / packet size.
The floor is bytes / bandwidth; measured cycles/s over the floor's is the gap to explain.

    python benchmarks/byte_model.py [--bandwidth-gbs 3350]     # H100 SXM HBM3; H200: 4800
"""
from __future__ import annotations

import argparse

from flitsim import _core

PORT_BYTES, NODE_BYTES, FLIT_HOP_BYTES, PACKET_HOP_BYTES = 20, 12, 52, 48


def bytes_per_cycle(ports: int, nodes: int, flits_per_node: float, hops: float, packet_size: float) -> float:
    """Fewest bytes one cycle moves: every port's per-cycle reads, every node's, and each flit-hop
    and packet-hop at `flits_per_node` flits entering per node and cycle over `hops` router
    hops (+1 for ejection)."""
    flit_hops = nodes * flits_per_node * (hops + 1)
    return ports * PORT_BYTES + nodes * NODE_BYTES + flit_hops * FLIT_HOP_BYTES \
        + flit_hops / packet_size * PACKET_HOP_BYTES


def floor_cycles_per_s(ports: int, nodes: int, flits_per_node: float, hops: float, packet_size: float,
                       bandwidth_gbs: float) -> float:
    """The byte floor as a rate: no engine moving these bytes at this bandwidth runs faster."""
    return bandwidth_gbs * 1e9 / bytes_per_cycle(ports, nodes, flits_per_node, hops, packet_size)


def dragonfly(p: int) -> dict:
    return {"topology": {"kind": "dragonfly", "p": p, "a": 2 * p, "h": p},
            "traffic": {"packet_size": 4}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[2, 3, 4, 6, 8])
    ap.add_argument("--bandwidth-gbs", type=float, default=3350.0)
    ap.add_argument("--hops", type=float, default=2.7, help="mean router hops (MIN, uniform)")
    args = ap.parse_args(argv)
    print(f"{'p':>2} {'nodes':>6} {'routers':>7} {'ports':>6} {'state MiB':>9} {'B/router':>8} "
          f"{'B/port':>6} {'B/node':>6} | floor cycles/s at load 0.1, 0.5 ({args.bandwidth_gbs:.0f} GB/s)")
    for p in args.sizes:
        d = _core.state_layout(dragonfly(p))
        R, P, N = d["routers"], d["ports"], d["nodes"]
        floors = [floor_cycles_per_s(P, N, load, args.hops, 4, args.bandwidth_gbs) for load in (0.1, 0.5)]
        b = d["bytes"]
        print(f"{p:>2} {N:>6} {R:>7} {P:>6} {b / 2**20:>9.1f} {b / R:>8.0f} {b / P:>6.0f} {b / N:>6.0f} | "
              f"{floors[0]:>12,.0f} {floors[1]:>12,.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
