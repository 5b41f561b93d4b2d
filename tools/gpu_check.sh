#!/usr/bin/env bash
# The CUDA checks, for a machine with an NVIDIA GPU and a Python that has torch, pytest, pytest-xdist and
# pytest-timeout (the project need not be installed): builds the CTF tokenizer in place, runs the test suite
# with the GPU as CNTK's default device (as CNTK picks it), then the benchmarks with --device cuda.
# Usage: tools/gpu_check.sh [test seconds, default 240] [benchmarks: 1 (default) or 0]
# Logs go to $OUT, else ./gpu-check; the test log names each test as it ends, so a run cut short still says
# which tests failed.
set -u
cd "$(dirname "$0")/.."
out=${OUT:-gpu-check}
mkdir -p "$out"
py=${PYTHON:-python3}
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 OMP_NUM_THREADS=2
test_seconds=${1:-240}
benchmarks=${2:-1}

nvidia-smi -L
$py -c "import torch, numpy; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'cudnn',
torch.backends.cudnn.version(), torch.cuda.get_device_name(0), 'numpy', numpy.__version__)"

read -r include suffix < <($py -c "import sysconfig; print(sysconfig.get_paths()['include'],
sysconfig.get_config_var('EXT_SUFFIX'))")
cc -O2 -shared -fPIC -I"$include" cntk_compat/io/_ctf_native.c -o "cntk_compat/io/_ctf_native$suffix" \
    && echo "built _ctf_native$suffix"

echo "== tests on CUDA (at most ${test_seconds} s)"
timeout "$test_seconds" $py -m pytest -n 14 -v --timeout 150 -rfE --junitxml "$out/junit.xml" \
    >"$out/tests.log" 2>&1
echo "pytest exit $?"
grep -E "^(FAILED|ERROR) |\] (FAILED|ERROR) " "$out/tests.log" | sed -E 's/^\[gw[0-9]+\] \[ *[0-9]+%\] //' | sort -u
tail -n 1 "$out/tests.log"
[ "$benchmarks" = 1 ] || exit 0

echo "== benchmarks on CUDA"
timeout 120 $py benchmarks/bench_rnn.py --device cuda --rounds 5 2>&1 | tee "$out/bench_rnn.log"
timeout 60 $py benchmarks/bench_latency.py --device cuda --rounds 5 2>&1 | tee "$out/bench_latency.log"
