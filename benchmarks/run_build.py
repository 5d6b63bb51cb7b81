"""One measured run of either build, in its own process: the dragonfly (p, a = 2p, h = p) under
uniform MIN at `load` for `cycles` cycles on the CPU backend. BUILD = "current" (the installed
package) or a folder holding another build's flitsim package. Prints one JSON line. Used by
compare_builds.py (timing) and callgrind_cycle.sh (instruction counts).
    python benchmarks/run_build.py BUILD P LOAD THREADS CYCLES"""
import json
import os
import sys

# numpy's OpenBLAS starts a thread per core that busy-waits for a while after import: with two
# simulation threads on two cores it takes one of them during the first ~0.1 s (perf). The
# simulator uses no BLAS, so the measured runs keep OpenBLAS to one thread.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

build, p, load, threads, cycles = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
if build != "current":  # import the other build: drop the editable finder, put its folder first
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__.lower()]
    sys.path.insert(0, build)
import flitsim  # noqa: E402 (after choosing the build)

cfg = {"topology": {"kind": "dragonfly", "p": p, "a": 2 * p, "h": p},
       "router": {"vcs": 4, "buffer": 32, "latency": 2},
       "traffic": {"pattern": "uniform", "load": load, "packet_size": 4},
       "sim": {"warmup": cycles // 3, "measure": cycles - cycles // 3, "seed": 1, "drain_limit": 1}}
r = flitsim.run(cfg, threads=threads, backend="cpu", progress=False)
print(json.dumps({"cycles_per_s": r.cycles / r.wall_seconds, "routers": r.routers, "accepted": r.accepted}))
