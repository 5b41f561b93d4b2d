"""Correctly rounded float32 square roots on the CPU.

CNTK computes sqrt with the C library's sqrtf, which IEEE 754 rounds correctly. torch's vectorized CPU sqrt
for float32 does not always (torch 2.x with AVX-512: 17% of random inputs come out one ulp off), so a
parameter update that divides by sqrt(variance) (AdaGrad, Adam, RMSProp, FSAdaGrad, AdaDelta) or the sqrt op
parted from CNTK's numbers in the last bit. numpy's sqrt is the processor's correctly rounded instruction, as
fast as torch's, and reads and writes a CPU tensor's memory in place; while torch traces (export, compile) the
square root of the float64 value rounded to float32 is used, which is correctly rounded too (float64 carries
more than 2·24 + 2 bits). Other dtypes and devices (CUDA's sqrt is IEEE) use torch's sqrt as it is."""
import numpy as np
import torch


def _on_cpu_float32(t):
    return t.dtype == torch.float32 and t.device.type == "cpu"


def sqrt(t):
    """sqrt(t), correctly rounded (not differentiable: for forward computations and optimizer states)."""
    if not _on_cpu_float32(t):
        return torch.sqrt(t)
    if torch.compiler.is_compiling():
        return torch.sqrt(t.double()).to(torch.float32)
    return torch.from_numpy(np.asarray(np.sqrt(t.detach().numpy())))  # a 0-d array gives a numpy scalar


def foreach_sqrt(tensors):
    """[sqrt(t) for t in tensors], correctly rounded."""
    tensors = list(tensors)
    if not any(_on_cpu_float32(t) for t in tensors):
        return torch._foreach_sqrt(tensors)
    return [sqrt(t) for t in tensors]


def foreach_sqrt_(tensors):
    """Replaces each tensor (without autograd history) by its correctly rounded square root."""
    tensors = list(tensors)
    if not any(_on_cpu_float32(t) for t in tensors):
        torch._foreach_sqrt_(tensors)
        return
    for t in tensors:
        if _on_cpu_float32(t) and not torch.compiler.is_compiling():
            a = t.detach().numpy()
            np.sqrt(a, out=a)
        elif _on_cpu_float32(t):
            t.copy_(torch.sqrt(t.double()))
        else:
            t.sqrt_()
