#!/usr/bin/env bash
# Everything a GPU session needs in ONE device call (device time is short, ~20 min of wall
# time budgeted here): build the CUDA backend (no internet there: --no-build-isolation,
# packages already present), run the GPU equivalence tests for every schedule, run
# compute-sanitizer (memcheck, racecheck, synccheck) on each schedule, then benchmark every
# schedule over the matrix of benchmarks/bench_schedules.py. Logs, bench.jsonl and bench.md
# land in $OUT; commit them under benchmarks/results/ with the device name, date and commit.
#   device run:  bash benchmarks/gpu_session.sh   carry [".whl"]   (BENCH_BUDGET=seconds to change the budget)
set -uo pipefail
OUT=${OUT:-/tmp/flitsim-out}
mkdir -p "$OUT"
export FLITSIM_CUDA=ON PYTHONUNBUFFERED=1 CMAKE_BUILD_PARALLEL_LEVEL=16
start=$(date +%s)
stamp() { echo "== $1 (t=$(( $(date +%s) - start )) s)"; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; git rev-parse HEAD 2>/dev/null; date -u; } | tee "$OUT/gpu.txt"
stamp build
# The pinned CCCL headers (CMakeLists.txt) travel as a wheel in .whl/ (the machine has no
# internet): here, once, `pip download --no-deps nvidia-cuda-cccl==13.1.115 -d .whl` with the
# device README's platform flags, then name `.whl` in the run's carry.
if ls .whl/nvidia_cuda_cccl-13.1.115-*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/cccl .whl/nvidia_cuda_cccl-13.1.115-*.whl
  export FLITSIM_CCCL_INCLUDE=/tmp/cccl/nvidia/cu13/include/cccl
else
  echo "note: .whl/nvidia_cuda_cccl-13.1.115 not carried; CUB comes from nvcc's bundled CCCL" | tee -a "$OUT/gpu.txt"
fi
python3 -m pip install -q --no-build-isolation --no-deps . > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
python3 -c "import flitsim.engine as e; print('backends:', e.available_backends(), '|', e.backend_status())"
stamp "tests: every schedule against the CPU, field by field"
python3 -m pytest -q -p no:cacheprovider tests/test_gpu.py tests/test_corpus.py 2>&1 | tee "$OUT/tests.log" | tail -8
stamp "compute-sanitizer on each schedule"
cat > /tmp/sanitize.py <<'PY'
import sys, flitsim
cfg = {"topology": {"kind": "dragonfly", "p": 2, "a": 4, "h": 2}, "routing": {"algorithm": "ugal"},
       "traffic": {"load": 0.6, "packet_size": 4}, "sim": {"warmup": 30, "measure": 60, "chunk": 16,
       "schedule": sys.argv[1]}}
print(sys.argv[1], flitsim.run(cfg, backend="cuda").summary()["accepted"])
PY
for sched in router block graph persistent; do
  for tool in memcheck racecheck synccheck; do
    timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 python3 /tmp/sanitize.py $sched > "$OUT/sanitizer.log.tmp" 2>&1
    echo "$sched $tool exit=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer.log.tmp" | tail -1)" | tee -a "$OUT/sanitizer.txt"
    cat "$OUT/sanitizer.log.tmp" >> "$OUT/sanitizer.log"
  done
done
rm -f "$OUT/sanitizer.log.tmp"
stamp benchmarks
python3 benchmarks/bench_schedules.py --backends cuda --budget "${BENCH_BUDGET:-720}" \
  --out "$OUT/bench.jsonl" --table "$OUT/bench.md" 2>&1 | tail -80
stamp done
