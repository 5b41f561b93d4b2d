"""Tolerances of float32 comparisons that involve torch's fused GPU kernels.

cuDNN's recurrent kernels round float32 in another order than the CPU kernels, the step-by-step loop and
onnxruntime: on an H100, up to 1e-4 relative where the CPU agrees to 1e-6. float64 is unaffected."""
import cntk_compat as C
from cntk_compat.core.device import DeviceKind

ON_GPU = C.use_default_device().type() == DeviceKind.GPU


def float32_tolerance(on_cpu):
    """``on_cpu`` where CNTK's default device is the CPU; at least 2e-4 on a GPU."""
    return max(on_cpu, 2e-4) if ON_GPU else on_cpu
