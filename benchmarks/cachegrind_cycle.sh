#!/bin/bash
# Cache misses and branch mispredicts per simulated cycle (cachegrind: noise-free on a shared
# machine), the companion of callgrind_cycle.sh.
#   bash benchmarks/cachegrind_cycle.sh BUILD P LOAD CYCLES
# BUILD, P, LOAD as callgrind_cycle.sh (the dragonfly p=P, a=2P, h=P, one thread). Runs CYCLES
# and 2 x CYCLES cycles and prints the difference per cycle of: instructions (Ir), L1 data read
# and write misses (D1mr, D1mw), last-level read misses (LLmr, a 32 MiB 16-way last level as
# this project's VM) and mispredicted conditional branches (Bcm). Cachegrind models L1 and the
# last level only, not L2. PYTHON must be an interpreter binary (not a pyenv shim script).
set -euo pipefail
BUILD=$1 P=$2 LOAD=$3 CYCLES=$4
PY=${PYTHON:-$(command -v python3)}
CHILD="$(dirname "$0")/run_build.py"
one() {
  local f
  f=$(mktemp)
  valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes --LL=33554432,16,64 --cachegrind-out-file="$f" \
    "$PY" "$CHILD" "$BUILD" "$P" "$LOAD" 1 "$1" >/dev/null 2>&1
  # PROGRAM TOTALS columns: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim
  cg_annotate "$f" 2>/dev/null | grep -m1 "PROGRAM TOTALS" | tr -d ',' | awk '{print $1, $9, $15, $11, $21}'
  rm -f "$f"
}
a=$(one "$CYCLES")
b=$(one $((CYCLES * 2)))
python3 - "$a" "$b" "$CYCLES" "$BUILD p=$P load=$LOAD" <<'PY'
import sys
a, b = (list(map(int, x.split())) for x in sys.argv[1:3])
d = [(y - x) / int(sys.argv[3]) for x, y in zip(a, b)]
print(sys.argv[4] + ": per cycle Ir %.0f D1mr %.0f D1mw %.0f LLmr %.0f Bcm %.0f" % tuple(d))
PY
