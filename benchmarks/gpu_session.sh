#!/usr/bin/env bash
# Everything a GPU session needs in ONE device call (device time is short): build the CUDA
# backend with nvcc (no internet there: --no-build-isolation, packages already present), run
# the GPU equivalence tests and the engine tests, run compute-sanitizer on a small run, then
# the benchmarks. Logs and the JSONL benchmark records land in $OUT; commit the records under
# benchmarks/results/ with the device name and date.
#   device run:  bash benchmarks/gpu_session.sh
set -uo pipefail
OUT=${OUT:-/tmp/flitsim-out}
mkdir -p "$OUT"
export FLITSIM_CUDA=ON PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
echo "== build"
python3 -m pip install -q --no-build-isolation --no-deps . > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
python3 -c "import flitsim.engine as e; print('backends:', e.available_backends(), '|', e.backend_status())"
echo "== tests"
python3 -m pytest -q -p no:cacheprovider tests/test_gpu.py tests/test_engine.py 2>&1 | tee "$OUT/tests.log" | tail -6
echo "== compute-sanitizer (memcheck, racecheck) on a small run"
cat > /tmp/sanitize.py <<'PY'
import flitsim
cfg = {"topology": {"kind": "dragonfly", "p": 2, "a": 4, "h": 2}, "traffic": {"load": 0.6, "packet_size": 4},
       "sim": {"warmup": 50, "measure": 100}}
print(flitsim.run(cfg, backend="cuda").summary())
PY
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool python3 /tmp/sanitize.py > "$OUT/sanitizer-$tool.log" 2>&1
  tail -2 "$OUT/sanitizer-$tool.log"
done
echo "== benchmarks"
python3 benchmarks/bench_dragonfly.py --out "$OUT/bench.jsonl" 2>&1 | tee "$OUT/bench.txt"
