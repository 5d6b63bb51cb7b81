"""Numbers the docs quote from single flitsim runs: where each appears, the command that
produces it and the tolerance a rerun must meet. analysis/regenerate_docs.py rewrites them
from fresh runs (`python analysis/regenerate_docs.py claims`); tests/test_docs_numbers.py
reruns each command and checks the quoted number within its tolerance.

A claim's `text` is the doc's words around the number, with {} where the number goes; the
number is written with `digits` decimals.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Claim:
    doc: str            # file under docs/
    text: str           # the quoted words, {} for the number
    command: tuple      # flitsim arguments (run ... --json)
    field: str          # the JSON field quoted
    digits: int
    tolerance: float    # |doc - rerun| allowed (results are deterministic: the tolerance
    #                     covers the rounding and code changes that move results slightly)


DF72 = "configs/validation/booksim-dragonfly72.toml"
FF44 = "configs/validation/booksim-flatfly44.toml"
DF_UGAL_BAD_BOOKSIM_VCS = ("--set", "routing.algorithm=ugal", "--set", "router.vcs=3",
                           "--set", "routing.vc_scheme=booksim", "--set", "traffic.pattern=bad-dragon",
                           "--set", "traffic.self=false", "--set", "sim.warmup=20000",
                           "--set", "sim.measure=10000", "--set", "sim.drain_limit=1")
TORUS88 = "configs/validation/booksim-torus88.toml"
FF_UGAL8 = ("--set", "routing.algorithm=ugal", "--set", "routing.cost=hops", "--set",
            "routing.offset=2", "--set", "routing.n_indirect=1", "--set", "router.vcs=8")

DF1K_SATURATE = ("saturate", "configs/dragonfly-1k.toml", "--backend", "cpu")

HX_QUICK_SATURATE = ("saturate", "configs/papers/hyperx-dimwar.toml", "--set", "topology.widths=[4,4,4]",
                     "--set", "topology.terminals=4", "--set", "sim.warmup=2000", "--set", "sim.measure=2000",
                     "--set", "routing.sensing=class", "--tolerance", "0.01", "--backend", "cpu")

CLAIMS = (
    Claim("validation.md", "| — | — | 0.145 / {} (",
          ("run", DF72, "--set", "traffic.load=0.2", *DF_UGAL_BAD_BOOKSIM_VCS), "accepted", 3, 0.003),
    Claim("validation.md", "| `vc_scheme = \"booksim\"` (3 VCs) | 339.2 / 506.2 | 0.170 / {} |",
          ("run", DF72, "--set", "traffic.load=0.2", *DF_UGAL_BAD_BOOKSIM_VCS), "accepted", 3, 0.003),
    Claim("validation.md", "| — / 12.0 | 0.26 / 0.42 / 0.80 | — / 12.8 | — / 14.0 | — / {} |",
          ("run", FF44, "--set", "traffic.load=0.8", *FF_UGAL8), "accepted", 3, 0.003),
    Claim("validation.md", "| `ugal`, 8 VCs | — / 12.0 | 0.26 / 0.42 / 0.80 | — / {} |",
          ("run", FF44, "--set", "traffic.load=0.26", *FF_UGAL8), "latency_mean", 1, 0.15),
    Claim("validation.md", "| — / 12.8 | — / {} | — / 0.6",
          ("run", FF44, "--set", "traffic.load=0.42", *FF_UGAL8), "latency_mean", 1, 0.15),
    Claim("experiments.md", "default search takes {}\nengine runs of one replica",
          DF1K_SATURATE, "engine_runs", 0, 1),
    Claim("experiments.md", "engine runs of one replica and {} replica-cycles in all",
          DF1K_SATURATE, "replica_cycles", 0, 4000),
    Claim("experiments.md", "replica-cycles in all (saturation load {})",
          DF1K_SATURATE, "saturation", 4, 0.01),
    Claim("reproductions.md", "with the same switch MIN under uniform traffic accepts {} there",
          ("run", "configs/papers/diameter-two-ioq.toml", "--set", "topology.q=13", "--set", "topology.p=10",
           "--set", "sim.warmup=3000", "--set", "sim.measure=2000"), "accepted", 3, 0.005),
    Claim("reproductions.md", "P3 Slim Fly q = 5 MIN under uniform {} (0.621 with",
          ("run", "configs/papers/diameter-two-ioq.toml"), "accepted", 3, 0.005),
    Claim("reproductions.md", "cannot (head-of-line blocking at its inputs; {} here with speedup 1)",
          ("run", "configs/papers/diameter-two-ioq.toml", "--set", "router.speedup=1"), "accepted", 3, 0.005),
    Claim("validation.md", "left-going non-crossing = 1) | 0.650 | 0.633 | {} |",
          ("run", TORUS88, "--set", "routing.dateline=booksim", "--set", "traffic.load=0.9"), "accepted", 3, 0.003),
    Claim("validation.md", "| 8-ary 2-cube | accepted at offered 0.9 | 0.370 | {} | +0.200 |",
          ("run", TORUS88, "--set", "routing.algorithm=min-adapt", "--set", "router.vcs=3", "--set", "traffic.load=0.9"),
          "accepted", 3, 0.003),
    Claim("reproductions.md", "`--tolerance 0.01`) puts the saturation load at {} (the highest",
          (*HX_QUICK_SATURATE, "--set", "traffic.pattern=swap2"), "saturation", 3, 0.01),
    Claim("reproductions.md", "5 %) with at most {} accepted over its probes",
          (*HX_QUICK_SATURATE, "--set", "traffic.pattern=swap2"), "max_accepted", 3, 0.01),
    Claim("reproductions.md", "and under UR at {} with at most",
          (*HX_QUICK_SATURATE, "--set", "traffic.pattern=uniform"), "saturation", 3, 0.01),
    Claim("reproductions.md", "with at most {}, each within a point",
          (*HX_QUICK_SATURATE, "--set", "traffic.pattern=uniform"), "max_accepted", 3, 0.01),
)
