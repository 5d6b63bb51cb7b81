#!/usr/bin/env bash
# Run HERE (the development machine: nvcc, no GPU) before a GPU session: builds the flitsim
# wheel with the CUDA backend for the device machine's Python (3.12, sm_90) into .whl/ (git
# ignores it; name it in the device call's carry), with the pinned CCCL wheel beside it and
# the source hash it was built from. The CUDA backend takes ~10 min to compile on
# this 2-core machine, time the device's 10-minute call limit cannot spare:
# gpu_session.sh installs this wheel in seconds when its hash matches the tree it was sent,
# and builds from source otherwise.
#   bash benchmarks/gpu_wheel.sh   (PY312: a Python 3.12 interpreter, default python3.12; VENV and
#                                   BUILD_DIR: where its build venv and CMake build live, kept for rebuilds)
set -euo pipefail
cd "$(dirname "$0")/.."
PY312=${PY312:-python3.12}
VENV=${VENV:-/tmp/flitsim-wheel-py312}
CCCL=nvidia-cuda-cccl==13.1.115
mkdir -p .whl
grep -qxF '/.whl/' .gitignore || echo "warning: .whl/ is not git-ignored" >&2
[ -x "$VENV/bin/python" ] || "$PY312" -m venv "$VENV"
"$VENV/bin/python" -c 'import sys; assert sys.version_info[:2] == (3, 12), sys.version' ||
  { echo "gpu_wheel.sh: the device runs Python 3.12; set PY312 to a 3.12 interpreter" >&2; exit 1; }
"$VENV/bin/pip" install -q scikit-build-core pybind11 numpy "$CCCL"
# The CCCL headers as a wheel too, for gpu_session.sh's fallback build from source.
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d .whl "$CCCL"
rm -f .whl/flitsim-*.whl .whl/flitsim.source-hash
hash=$(bash benchmarks/source_hash.sh)
start=$(date +%s)
FLITSIM_CUDA=ON CUDACXX=${CUDACXX:-/usr/local/cuda/bin/nvcc} CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
  "$VENV/bin/pip" wheel -q --no-build-isolation --no-deps -w .whl -Cbuild-dir="${BUILD_DIR:-build/gpu-wheel-cp312}" .
[ "$(bash benchmarks/source_hash.sh)" = "$hash" ] ||
  { echo "gpu_wheel.sh: the sources changed while building; run it again" >&2; exit 1; }
echo "$hash" > .whl/flitsim.source-hash
echo "built $(ls .whl/flitsim-*.whl) from sources $hash in $(( $(date +%s) - start )) s"
du -sh .whl
