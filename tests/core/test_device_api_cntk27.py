"""cntk.device as CNTK 2.7 answers a script: GPU properties of the CPU refused, try_set_default_device's errors for
what is not a device, DeviceDescriptor's static methods. Expected values: CNTK 2.7, probed on the same calls."""
import numpy as np
import pytest

import cntk as C
from cntk import device as D


def test_gpu_properties_of_the_cpu_are_refused(capsys):
    with pytest.raises(ValueError, match="GPU properties cannot be obtained for a CPU device"):
        D.get_gpu_properties(D.cpu())
    assert "About to throw exception 'GPU properties cannot be obtained for a CPU device.'" in capsys.readouterr().err


def test_try_set_default_device_of_what_is_not_a_device():
    with pytest.raises(ValueError):
        D.try_set_default_device(None)
    with pytest.raises(NotImplementedError):
        D.try_set_default_device('cpu')
    assert D.try_set_default_device(D.cpu()) is True
    assert D.try_set_default_device(D.cpu(), acquire_device_lock=True) is False


def test_device_descriptor_static_constructors():
    assert D.DeviceDescriptor.cpu_device() == D.cpu() == C.cpu()
    assert D.DeviceDescriptor.use_default_device() == D.use_default_device()
    assert D.DeviceDescriptor.all_devices() == D.all_devices()


def test_device_descriptor_static_methods_of_the_device_module():
    # CNTK's end-to-end tests call DeviceDescriptor.try_set_default_device(...); CNTK 2.7 answers as cntk.device does
    DD = C.DeviceDescriptor
    assert DD.try_set_default_device(D.cpu()) is True
    assert DD.try_set_default_device(D.cpu(), True) is False
    with pytest.raises(NotImplementedError):
        DD.try_set_default_device('cpu')
    assert DD.set_excluded_devices([]) is None
    with pytest.raises(ValueError, match="GPU properties cannot be obtained for a CPU device"):
        DD.get_gpu_properties(D.cpu())


@pytest.mark.parametrize("device_id,error", [(-1, OverflowError), (2 ** 32, OverflowError), (1.5, TypeError),
                                             ("0", TypeError), (None, TypeError), (np.int64(0), TypeError)])
def test_gpu_ids_that_are_not_an_unsigned_int_are_swigs_errors(device_id, error, capsys):
    # CNTK 2.7 (its AN4 example run with -device -1 calls gpu(-1)): SWIG refuses what is not a Python int in
    # 0..2**32-1 before the native library is reached, so nothing is announced
    for make in (D.gpu, D.DeviceDescriptor.gpu_device):
        with pytest.raises(error, match=r"^in method 'DeviceDescriptor_gpu_device', argument 1 of type "
                                        r"'unsigned int'$"):
            make(device_id)
    assert "About to throw" not in capsys.readouterr().err
