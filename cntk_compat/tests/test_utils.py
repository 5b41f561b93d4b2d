"""cntk.tests.test_utils: the helpers CNTK's notebooks and tests import."""
import os

import numpy as np
import scipy.sparse

TOLERANCE_ABSOLUTE = 1e-06
PRECISION_TO_TYPE = {"float": np.float32, "double": np.float64}
AA = np.asarray


def set_device_from_pytest_env():
    """Select the device named by the TEST_DEVICE environment variable ('cpu' or 'gpu')."""
    from .. import device
    choice = os.environ.get("TEST_DEVICE")
    if choice == "cpu":
        device.try_set_default_device(device.cpu())
    elif choice:
        device.try_set_default_device(device.gpu(0))


def _to_csr(data):
    arr = np.asarray(data, dtype=np.float32)
    return scipy.sparse.csr_matrix(arr.reshape((-1, arr.shape[-1])), dtype=np.float32)
