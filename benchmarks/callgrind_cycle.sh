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
CHILD="$(dirname "$0")/run_build.py"  # one run of either build, one thread
one() {
  local f
  f=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file="$f" "$PY" "$CHILD" "$BUILD" "$P" "$LOAD" 1 "$1" >/dev/null 2>&1
  callgrind_annotate --inclusive=yes "$f" 2>/dev/null | grep "run_engine" | head -1 | awk '{gsub(",", "", $1); print $1}'
  rm -f "$f"
}
a=$(one "$CYCLES")
[ -n "$a" ] || { echo "callgrind found no run_engine symbol: use a RelWithDebInfo build (Release modules are stripped)" >&2; exit 1; }
b=$(one $((CYCLES * 2)))
python3 -c "print('$BUILD p=$P load=$LOAD: %.4f M instructions/cycle' % (($b - $a) / $CYCLES / 1e6))"
