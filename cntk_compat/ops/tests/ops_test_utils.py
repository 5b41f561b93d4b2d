"""cntk.ops.tests.ops_test_utils: `cntk_device`, which CNTK 2.7's end-to-end tests import to pick their device."""
from ...device import cpu, gpu


def cntk_device(device_id):
    """The DeviceDescriptor of a CNTK 1 style device id: -1 is the CPU, 0 or higher that GPU."""
    if device_id == -1:
        return cpu()
    return gpu(device_id)
