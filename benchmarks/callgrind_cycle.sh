#!/bin/bash
# Instructions per simulated cycle of the engine (callgrind: noise-free on a shared machine).
#   bash benchmarks/callgrind_cycle.sh BUILD P LOAD CYCLES
# BUILD: "current" (the installed flitsim) or a folder holding another build's flitsim package
# (as benchmarks/compare_builds.py). Runs the dragonfly p=P, a=2P, h=P (uniform, MIN, 4-flit
# packets, 4 VCs x 32 flits, router latency 2, one thread) for CYCLES and 2 x CYCLES cycles
# under callgrind and prints the difference of run_engine's inclusive count per cycle, which
# removes set-up and start-up. PYTHON must be an interpreter binary or a venv's symlink to one,
# not a pyenv shim script (default: python3 on PATH). Line-level profiles need a build with
# debug information (CMAKE_BUILD_TYPE=RelWithDebInfo): pybind11 strips Release modules.
set -euo pipefail
BUILD=$1 P=$2 LOAD=$3 CYCLES=$4
PY=${PYTHON:-$(command -v python3)}
CHILD='
import sys
build, p, load, cycles = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
if build != "current":
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__.lower()]
    sys.path.insert(0, build)
import flitsim
cfg = {"topology": {"kind": "dragonfly", "p": p, "a": 2 * p, "h": p},
       "router": {"vcs": 4, "buffer": 32, "latency": 2},
       "traffic": {"pattern": "uniform", "load": load, "packet_size": 4},
       "sim": {"warmup": cycles // 3, "measure": cycles - cycles // 3, "seed": 1, "drain_limit": 1}}
flitsim.run(cfg, threads=1, backend="cpu", progress=False)
'
one() {
  local f
  f=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file="$f" "$PY" -c "$CHILD" "$BUILD" "$P" "$LOAD" "$1" >/dev/null 2>&1
  callgrind_annotate --inclusive=yes "$f" 2>/dev/null | grep "run_engine" | head -1 | awk '{gsub(",", "", $1); print $1}'
  rm -f "$f"
}
a=$(one "$CYCLES")
b=$(one $((CYCLES * 2)))
python3 -c "print('$BUILD p=$P load=$LOAD: %.4f M instructions/cycle' % (($b - $a) / $CYCLES / 1e6))"
