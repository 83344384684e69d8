#!/usr/bin/env bash
# The GPU check of issue 15, as one script for a machine with an NVIDIA GPU (the device tool):
# installs the gpu extra, then runs on the real device what tests/test_device_double.py runs on
# the double (torch's device semantics, gradients, a trained model, every op-database row
# against the cpu), the seed tutorials, and the main job with --device cuda. Results land in
# $OUT (or ./gpu-results). Usage: bash tests/gpu/run_on_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-gpu-results}
mkdir -p "$OUT"
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
python3 -m venv /tmp/gpu-venv && source /tmp/gpu-venv/bin/activate
# the device machine may reach no package index: wheels carried in gpu-wheels/ are used first
pip install -q --find-links gpu-wheels -e ".[gpu,test]" > "$OUT/install.log" 2>&1
python -c "import tapegrad; print('cuda available:', tapegrad.cuda.is_available(),
tapegrad.cuda.get_device_name(0))" 2>&1 | tee "$OUT/available.txt"
# the double's tests with CuPy as the backend: TAPEGRAD_DEVICE_TESTS=cupy swaps the double out
TAPEGRAD_DEVICE_TESTS=cupy timeout 300 python -m pytest -q -p no:cacheprovider -W ignore \
    tests/test_device_double.py -rxX > "$OUT/device_tests.txt" 2>&1
tail -3 "$OUT/device_tests.txt"
timeout 120 python -m tapegrad.examples.digits --device cuda --epochs 5 \
    --plot "$OUT/digits.png" > "$OUT/digits_cuda.txt" 2>&1
tail -4 "$OUT/digits_cuda.txt"
OPENBLAS_NUM_THREADS=1 timeout 300 python benchmarks/run.py --device cuda --quick \
    --libs tapegrad,torch --only mlp_batch,conv_net,transformer_layer \
    --json "$OUT/bench_cuda.json" > "$OUT/bench_cuda.txt" 2>&1
tail -12 "$OUT/bench_cuda.txt"
