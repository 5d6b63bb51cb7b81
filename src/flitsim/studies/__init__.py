"""The five papers' studies as experiments: ``flitsim reproduce NAME`` (or
``python -m flitsim.studies NAME``) runs one and writes ``NAME.md`` (a markdown table) and
``NAME.png`` (a figure) into the output directory.

Each study starts from its experiment file, ``configs/papers/NAME.toml``, which holds the
whole experiment of one data point (router, channels, routing, traffic or workload, sim and,
where the varied keys are independent, a ``[sweep]``); the study varies what the file alone
cannot, i.e. keys that move together (the dragonfly size p = a/2 = h with the shift p + 1,
the perturbation ratio with both jobs' ranks). ``--quick`` (the default) runs small sizes in
minutes on two cores; ``--full`` runs the papers' sizes (hours on a CPU; a GPU helps). The
papers, in full, are cited in docs/papers.md.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import time

# One module per study (its function and constants); common.py holds what they share; this
# module the table of studies and reproduce(), which writes NAME.md.
from .common import Outcome, Study, experiment_path
from .diameter_two import diameter_two
from .dragonfly_valiant import dragonfly_valiant
from .hyperx_dimwar import hyperx_dimwar
from .iso_cost import iso_cost
from .network_noise import network_noise

__all__ = ["STUDIES", "Study", "reproduce", "experiment_path", "main"]

STUDIES: dict[str, Study] = {s.name: s for s in (
    Study("dragonfly-valiant", "Prisacari et al., HPSR 2015",
          "accepted throughput under bit complement and group shift for MIN, Valiant "
          "restricted/any and restricted with random group numbering vs dragonfly size",
          "p = 2, 3, 4 (72 to 1,056 nodes)", "p = 2..8 (72 to 16,512 nodes)", dragonfly_valiant),
    Study("network-noise", "Hoefler, Schneider, Lumsdaine, IPDPS 2009 (LSPP)",
          "slowdown of an 8-byte binomial reduce on fat trees under a perturbing job vs "
          "perturbation ratio", "16- and 64-node XGFTs, 8 draws",
          "plus the 144-node xgft(2,12,6), 16 draws", network_noise),
    Study("iso-cost", "Bhatele, Jain, Mubarak, Gamblin, SIGSIM-PADS 2019",
          "nodes, routers, links, radix, diameter and cost of the 20 iso-cost designs",
          "all 20 designs (structure only: fast)", "the same", iso_cost),
    Study("diameter-two", "Kathareios et al., SC 2015",
          "accepted throughput at full load of Slim Fly, MLFM and OFT under uniform and "
          "worst-case traffic, MIN and Valiant", "SF q=5, MLFM h=4, OFT k=4",
          "SF q=13 (p=9), MLFM h=15, OFT k=12", diameter_two),
    Study("hyperx-dimwar", "McDonald et al., SC 2019",
          "accepted throughput at full load of DOR, VAL, UGAL, Clos-AD, DimWAR and OmniWAR on a "
          "3-D HyperX with the paper's router, under UR, BC, URBx, URBy, S2 and DCR",
          "4x4x4 HyperX, 4 terminals (256 nodes)",
          "8x8x8, 8 terminals (4,096 nodes) as in the paper", hyperx_dimwar),
)}


def reproduce(name: str, output: str | os.PathLike = "reproductions", quick: bool = True,
              backend: str | None = None, threads: int | None = None,
              progress: bool | None = None) -> Outcome:
    """Run study `name` and write NAME.md and its figure(s) into `output`."""
    from ..progress import enabled
    if name not in STUDIES:
        raise ValueError(f"study: {name!r} is not one of {', '.join(STUDIES)}")
    out = pathlib.Path(output)
    out.mkdir(parents=True, exist_ok=True)
    st = STUDIES[name]
    experiment = "configs/papers/iso-*.toml" if name == "iso-cost" else f"configs/papers/{name}.toml"
    t0 = time.monotonic()
    res = st.run(out, quick, backend, threads, enabled(progress) is True)
    scale = st.quick if quick else st.full
    text = (f"# {name}: {st.what}\n\nPaper: {st.paper} (full citation in docs/papers.md). "
            f"Experiment: {experiment}; {'--quick' if quick else '--full'}: "
            f"{scale}; {time.monotonic() - t0:.0f} s.\n\n{res.table}\nFigure: {res.figure}\n")
    (out / f"{name}.md").write_text(text)
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m flitsim.studies", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("name", choices=list(STUDIES))
    ap.add_argument("--full", action="store_true")
    ap.add_argument("-o", "--output", default="reproductions")
    args = ap.parse_args(argv)
    res = reproduce(args.name, args.output, quick=not args.full, progress=True)
    print(res.table)
    return 0
