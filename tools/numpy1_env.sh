#!/usr/bin/env bash
# Builds a Python 3.10 environment with numpy 1.22 (the last numpy that accepts a list of slices as an index and
# makes ragged arrays with a warning, as the numpy 1.1x of CNTK 2.7's time did) plus this project's other
# dependencies, and prints its interpreter. CNTK 2.7's own test suite contains code that numpy >= 1.23 refuses
# (16 tests of its default subset); run it under this interpreter to see which failures are the package's:
#   tools/numpy1_env.sh /tmp/py310-numpy1
#   PYTHONPATH=$PWD /tmp/py310-numpy1/bin/python -m pytest -n 2 tests      # or CNTK's suite
# numpy 1.22 has no wheels for Python >= 3.11, hence 3.10 (PYTHON310 names the interpreter; default python3.10).
# WITH_ONNX=1 adds the onnx extra (CNTK's ONNX tests). The project itself is put on PYTHONPATH, not installed
# (the native CTF parser of a 3.11 build is not loaded by 3.10; the readers then use their numpy tokenizer).
set -euo pipefail
VENV="${1:?usage: tools/numpy1_env.sh VENV_DIR}"
PY="${PYTHON310:-python3.10}"
"$PY" -m venv "$VENV"
# TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu takes PyTorch's CPU-only wheels (no CUDA libraries)
"$VENV/bin/pip" install -q ${TORCH_INDEX_URL:+--index-url "$TORCH_INDEX_URL"} "torch==2.14.1" "torchvision==0.29.1"
# numpy pinned in the same resolution, so that nothing pulls a newer one back in
"$VENV/bin/pip" install -q "numpy==1.22.4" "scipy<1.12" "tensorboard" "protobuf" "pillow" "pytest>=7" \
    "pytest-xdist" "pytest-timeout" ${WITH_ONNX:+"onnx" "onnxruntime" "onnxscript"}
"$VENV/bin/python" -c "import numpy, torch, sys
print(sys.version.split()[0], 'numpy', numpy.__version__, 'torch', torch.__version__)" >&2
echo "$VENV/bin/python"
