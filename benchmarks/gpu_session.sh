#!/usr/bin/env bash
# A GPU session in TWO device calls, each cut to its time (SESSION_SECONDS) so that the pair
# fits a session's 15 minutes of device time, machine start included
# (/work/.library/device/README.md), and a failed first call leaves time for a second:
#   1. correctness (default: STAGES="install tests sanitizer", SESSION_SECONDS=300): install,
#      the GPU tests of every schedule against the CPU, compute-sanitizer on each schedule;
#   2. speed, at once on the still-warm machine (it is given back 30 s after a call):
#      STAGES="install goals bench" SESSION_SECONDS=360: issue 10's goals, then the benchmark
#      matrix with whatever time is left.
# Every stage is cut to the time left, so a slow or hung stage costs its share, not the call.
#
#   here, first:  bash benchmarks/gpu_wheel.sh          (the wheel for the device, ~10 min)
#   device 1:     run  command "bash benchmarks/gpu_session.sh"  carry [".whl"]  timeout_s 330
#   device 2:     run  command "STAGES='install goals bench' SESSION_SECONDS=360 bash benchmarks/gpu_session.sh"
#                      carry [".whl"]  timeout_s 390
#   here, without a GPU, to check the script itself:        DRY=1 SESSION_SECONDS=120 bash benchmarks/gpu_session.sh
#
# Comes back in $OUT (the device returns at most 8 files): session.txt (device, driver,
# sources, bandwidth, sanitizer and goal lines, stage times), tests.log, sanitizer.log,
# bench.jsonl, bench.md, and build.log if it had to build from source. Commit them under
# benchmarks/results/ with the date and commit, even when something failed: a failure is a
# result. STAGES picks stages (any of "install tests sanitizer goals bench"); BENCH_ARGS
# adds arguments to benchmarks/bench_schedules.py.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/flitsim-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
STAGES=" ${STAGES:-install tests sanitizer} "
start=$(date +%s)
budget=${SESSION_SECONDS:-300}
LOG="$OUT/session.txt"
SCRATCH=$(mktemp -d)  # the stages' working files: $OUT holds only what comes back
trap 'rm -rf "$SCRATCH"' EXIT
left() { echo $((start + budget - $(date +%s))); }
# cap S: S seconds, or what is left less 20 s for the summary if that is less (never below 0).
cap() { local l=$(($(left) - 20)); ((l < 0)) && l=0; ((${1} < l)) && echo "$1" || echo "$l"; }
stamp() { echo "== $1 (t=$(($(date +%s) - start)) s, $(left) s left)" | tee -a "$LOG"; }
has() { [[ $STAGES == *" $1 "* ]]; }
note() { echo "$*" | tee -a "$LOG"; }

{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || echo "no nvidia-smi"
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo 'not a git checkout')"
  echo "sources: $(bash benchmarks/source_hash.sh)"
  date -u; } | tee "$LOG"

BACKEND=cuda
if [ -n "${DRY:-}" ]; then
  BACKEND=cpu
  note "DRY: the installed flitsim on the CPU backend, no sanitizer (checks this script, not a GPU)"
elif has install; then  # into /tmp/site: a later call on the still-warm machine may skip this stage
  stamp install
  want=$(bash benchmarks/source_hash.sh)
  built=
  if ls .whl/flitsim-*-cp312-*.whl >/dev/null 2>&1 && [ "$(cat .whl/flitsim.source-hash 2>/dev/null)" = "$want" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target /tmp/site .whl/flitsim-*-cp312-*.whl
    if PYTHONPATH=/tmp/site python3 -c "import flitsim._core"; then
      built=wheel
      note "installed the prebuilt wheel $(basename .whl/flitsim-*-cp312-*.whl) (sources $want)"
    else
      note "the prebuilt wheel does not import here (above): building from source"
    fi
  else
    note "no wheel built from these sources ($want; run gpu_wheel.sh here first): building from source"
  fi
  if [ -z "$built" ]; then
    if ls .whl/nvidia_cuda_cccl-13.1.115-*.whl >/dev/null 2>&1; then
      python3 -m pip install -q --no-index --no-deps --target /tmp/cccl .whl/nvidia_cuda_cccl-13.1.115-*.whl
      export FLITSIM_CCCL_INCLUDE=/tmp/cccl/nvidia/cu13/include/cccl
    fi
    FLITSIM_CUDA=ON CMAKE_BUILD_PARALLEL_LEVEL=16 timeout "$(cap 420)" \
      python3 -m pip install --no-build-isolation --no-deps --upgrade --target /tmp/site . > "$OUT/build.log" 2>&1 ||
      { note "build failed or ran out of time (build.log)"; tail -30 "$OUT/build.log"; }
  fi
fi
# Not in DRY: there the flitsim under test is the one installed here, whatever /tmp holds.
[ -z "${DRY:-}" ] && [ -d /tmp/site ] && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
python3 -c "import flitsim, flitsim.engine as e; print('flitsim', flitsim.__file__, '| backends:', e.available_backends(), '|', e.backend_status())" 2>&1 | tee -a "$LOG"
if [ "$BACKEND" = cuda ] && ! python3 -c "import flitsim.engine as e, sys; sys.exit('cuda' not in e.available_backends())"; then
  note "the CUDA backend is not usable: only the tests run (they say why they skip)"
  STAGES=" tests "
fi

# Device memory bandwidth, read plus written, for the byte floor of each benchmark row.
BW=3350
if [ "$BACKEND" = cuda ] && { has goals || has bench; }; then  # only the benchmark rows use it
  bw=$(timeout 60 python3 - <<'PY' 2>/dev/null
import torch
x = torch.randint(0, 255, (2**30,), dtype=torch.uint8, device="cuda"); y = torch.empty_like(x)
for _ in range(3): y.copy_(x)
a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
a.record()
for _ in range(20): y.copy_(x)
b.record(); torch.cuda.synchronize()
print(round(2 * 2**30 * 20 / (a.elapsed_time(b) / 1e3) / 1e9))
PY
  ) && [ -n "$bw" ] && BW=$bw
fi
note "bandwidth for the byte floor: $BW GB/s"

if has tests; then
  stamp "tests: every schedule against the CPU, field by field"
  per_test=$(python3 -c "import pytest_timeout" 2>/dev/null && echo "--timeout=90")
  timeout "$(cap 170)" python3 -m pytest -q -p no:cacheprovider -rfE ${per_test:-} tests/test_gpu.py > "$OUT/tests.log" 2>&1
  note "tests: exit $? | $(tail -1 "$OUT/tests.log")"
fi

if has sanitizer && [ "$BACKEND" = cuda ]; then
  # Most telling first: memcheck (every access), synccheck (the warp barriers of WarpPorts),
  # racecheck last (it checks shared memory, which only CUB's counter reduction uses); within
  # each, the block-type schedules (the warp executor, cuda/lane_ports.cuh) before `router`.
  stamp "compute-sanitizer: memcheck on every schedule, then synccheck, then racecheck"
  cat > "$SCRATCH/sanitize.py" <<'PY'
import sys, flitsim
cfg = {"topology": {"kind": "dragonfly", "p": 2, "a": 4, "h": 2}, "routing": {"algorithm": "ugal"},
       "traffic": {"load": 0.6, "packet_size": 4}, "sim": {"warmup": 30, "measure": 60, "chunk": 16,
       "schedule": sys.argv[1]}}
print(sys.argv[1], flitsim.run(cfg, backend="cuda").summary()["accepted"])
PY
  until_s=$(($(date +%s) + $(cap 140)))
  for tool in memcheck synccheck racecheck; do
    for sched in block persistent graph router; do
      rem=$((until_s - $(date +%s)))
      if ((rem < 15)); then note "sanitizer $sched $tool: skipped (time)"; continue; fi
      timeout $((rem < 60 ? rem : 60)) compute-sanitizer --tool $tool --print-limit 20 --error-exitcode 9 \
        python3 "$SCRATCH/sanitize.py" $sched > "$SCRATCH/sanitizer.one" 2>&1
      rc=$?
      note "sanitizer $sched $tool: exit $rc$( ((rc == 124)) && echo ' (timeout)') $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$SCRATCH/sanitizer.one" | tail -1)"
      { echo "==== $sched $tool exit $rc"; head -c 400000 "$SCRATCH/sanitizer.one"; } >> "$OUT/sanitizer.log"
    done
  done
fi

BENCH="python3 benchmarks/bench_schedules.py --backends $BACKEND --bandwidth-gbs $BW --out $OUT/bench.jsonl --table $OUT/bench.md"
if has goals; then
  stamp "goals (issue 10): 32-replica saturate of the 1,056-node dragonfly; the 917,504-node HyperX"
  sat_args=$([ -n "${DRY:-}" ] && echo "--probes 2 --tolerance 0.2 --set sim.warmup=100 --set sim.measure=200" || echo "--probes 32")
  t0=$(date +%s.%N)
  timeout "$(cap 90)" python3 -m flitsim saturate configs/dragonfly-1k.toml --backend $BACKEND --json $sat_args \
    > "$SCRATCH/saturate.json" 2> "$SCRATCH/saturate.err"
  rc=$?
  note "goal saturate 1,056 nodes ($sat_args): exit $rc, $(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s end to end (goal < 10 s) | $(tail -1 "$SCRATCH/saturate.json" | head -c 400) $( ((rc)) && tail -2 "$SCRATCH/saturate.err")"
  if [ -z "${DRY:-}" ] && (($(left) > 200)); then
    timeout "$(cap 150)" $BENCH --networks hx1m --schedules auto --loads 0.3 --reps 1 --cycles 2000 > "$SCRATCH/hx1m.txt" 2>&1
    note "goal 917,504-node HyperX at load 0.3 (goal >= 1,000 cycles/s): exit $? | $(grep -E '^\| cuda' "$SCRATCH/hx1m.txt")"
  else
    note "goal 917,504-node HyperX: skipped ($([ -n "${DRY:-}" ] && echo DRY || echo 'time'))"
  fi
fi

if has bench; then
  stamp "benchmarks (most informative first, until the time is spent)"
  b=$(cap 600)
  timeout "$b" $BENCH --budget $((b > 60 ? b - 45 : 0)) --seconds 1 --max-state-gb 4 ${BENCH_ARGS:-} > "$SCRATCH/bench.txt" 2>&1
  note "benchmarks: exit $? | $(grep -c '^\[' "$SCRATCH/bench.txt") points started"
  python3 benchmarks/bench_schedules.py --table-from "$OUT/bench.jsonl" --table "$OUT/bench.md" 2>/dev/null
fi

stamp done
# The reply carries the last 12,000 characters: the summary, then the headline rows.
cat "$LOG"
[ -f "$OUT/bench.md" ] && { head -2 "$OUT/bench.md"; grep -E "df16k \| 0.5 \| 1 |df1k \| 0.5 \| 1 " "$OUT/bench.md"; }
exit 0
