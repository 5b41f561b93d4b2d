"""On a GPU the fused LSTM and RNN loops hand cuDNN their weights as views of one buffer in cuDNN's own layout,
so cuDNN reads them in place instead of laying out a copy at every call (torch warns when it has to)."""
import subprocess
import sys

import pytest
import torch

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")

_STEP = r'''
import warnings
import numpy as np
import cntk as C
import cntk_compat.core.fused_recurrence  # noqa: F401  (it silences the warning; this check wants to see it)
C.device.try_set_default_device(C.device.gpu(0))
warnings.resetwarnings()
warnings.simplefilter("always")
x = C.sequence.input_variable(3)
stacked = C.layers.Sequential([C.layers.Recurrence(C.layers.LSTM(4)), C.layers.Recurrence(C.layers.LSTM(4))])
for layers in (C.layers.Recurrence(C.layers.LSTM(4)), C.layers.Recurrence(C.layers.RNNStep(4, activation=C.tanh)),
               stacked):  # the last: two LSTM loops as one two-layer call, eight weights in one buffer
    z = C.sequence.last(layers(x))
    y = C.input_variable(4)
    trainer = C.Trainer(z, (C.squared_error(z, y), None), [C.sgd(z.parameters, C.learning_parameter_schedule(0.1))])
    data = [np.ones((n, 3), np.float32) for n in (2, 5, 3)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer.train_minibatch({x: data, y: np.zeros((3, 4), np.float32)})
    print(sum("contiguous chunk" in str(w.message) for w in caught))
'''


def test_cudnn_reads_the_fused_loops_weights_in_place():
    done = subprocess.run([sys.executable, "-c", _STEP], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["0", "0", "0"], done.stdout + done.stderr[-2000:]
