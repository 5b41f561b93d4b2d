"""cntk.device: where computations run (torch's CPU or a CUDA GPU)."""
from .core.device import (DeviceDescriptor, DeviceKind, all_devices, cpu, get_gpu_properties, gpu,
                          set_excluded_devices, try_set_default_device, use_default_device)

__all__ = ["DeviceDescriptor", "DeviceKind", "all_devices", "cpu", "get_gpu_properties", "gpu",
           "set_excluded_devices", "try_set_default_device", "use_default_device"]
