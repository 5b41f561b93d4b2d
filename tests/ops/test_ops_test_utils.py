"""cntk.ops.tests.ops_test_utils.cntk_device, which CNTK 2.7's end-to-end tests import to pick their device
(`from cntk.ops.tests.ops_test_utils import cntk_device`): -1 is the CPU, a GPU id that GPU (CNTK 2.7 without
a GPU: ValueError "Specified GPU device id (0) is invalid.")."""
import pytest
import torch

import cntk as C
from cntk.ops.tests.ops_test_utils import cntk_device


def test_minus_one_is_the_cpu():
    assert cntk_device(-1) == C.cpu()
    assert cntk_device(-1).type() == C.cntk_py.DeviceKind_CPU


def test_a_gpu_id_is_that_gpu():
    if torch.cuda.is_available():
        assert cntk_device(0) == C.gpu(0)
    else:
        with pytest.raises(ValueError, match=r"Specified GPU device id \(0\) is invalid"):
            cntk_device(0)
