#!/usr/bin/env bash
# The GPU check of issue 15, as one script for the device tool's machine (an NVIDIA GPU, no
# network). That machine's python3 already holds CuPy, NumPy, pytest and a CUDA build of torch
# (/work/.library/device/KINDS.md), so nothing is installed: tapegrad runs from src/. It runs
# on the real device what tests/test_device_double.py runs on the double (torch's device
# semantics, gradients, a trained model, every op-database row against the cpu), the seed
# tutorials with cuda as the default device (their output must equal the cpu's but for the
# device), the main job with --device cuda, and the benchmarks against torch's CUDA build.
# Each step has its own time limit so the whole run ends within 9 minutes; the logs land in
# $OUT (or ./gpu-results). Usage: bash tests/gpu/run_on_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-gpu-results}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$OUT/gpu.txt" 2>&1
$PY -c "import cupy, numpy, tapegrad; print('cupy', cupy.__version__, 'numpy', numpy.__version__,
'cuda available:', tapegrad.cuda.is_available(), tapegrad.cuda.get_device_name(0))" \
    2>&1 | tee -a "$OUT/gpu.txt"

# 1. the double's tests with CuPy as the backend (TAPEGRAD_DEVICE_TESTS=cupy swaps the double
#    out; the op-database rows' strict xfails turn non-strict there)
TAPEGRAD_DEVICE_TESTS=cupy PYTHONPATH=$PYTHONPATH:$PWD/tests timeout 300 $PY -m pytest -q \
    -p no:cacheprovider -W ignore -rxX tests/test_device_double.py tests/test_device_seeds.py \
    tests/test_data_parallel.py tests/test_device_storage.py tests/test_device_factorization.py \
    tests/test_device_householder.py tests/test_device_samplers.py \
    > "$OUT/device_tests.txt" 2>&1
tail -3 "$OUT/device_tests.txt"

# 2. the seed tutorials on the device: the same printout as on the cpu, device aside
timeout 60 $PY examples/seed_walkthrough.py > "$OUT/seeds_cpu.txt" 2>&1
timeout 60 $PY -c "import runpy, tapegrad; tapegrad.set_default_device('cuda');
runpy.run_path('examples/seed_walkthrough.py', run_name='__main__')" > "$OUT/seeds_cuda.txt" 2>&1
sed -e "s/, device='cuda:0'//g" -e "s/device(type='cuda', index=0)/device(type='cpu')/g" \
    "$OUT/seeds_cuda.txt" | diff "$OUT/seeds_cpu.txt" - > "$OUT/seeds_diff.txt" \
    && echo "seeds: the cuda printout equals the cpu's" \
    || echo "seeds: $(wc -l < "$OUT/seeds_diff.txt") lines differ (seeds_diff.txt)"

# 3. the main job on the device
timeout 120 $PY -m tapegrad.examples.digits --device cuda --epochs 5 \
    --plot "$OUT/digits.png" > "$OUT/digits_cuda.txt" 2>&1
tail -4 "$OUT/digits_cuda.txt"

# 4. tapegrad against torch's CUDA build
OPENBLAS_NUM_THREADS=1 timeout 150 $PY benchmarks/run.py --device cuda --quick --no-memory \
    --libs tapegrad,torch --only mlp_batch,conv_net,transformer_layer \
    --json "$OUT/bench_cuda.json" > "$OUT/bench_cuda.txt" 2>&1
tail -12 "$OUT/bench_cuda.txt"
