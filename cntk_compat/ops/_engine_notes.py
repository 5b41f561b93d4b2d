"""What CNTK 2.7's CPU convolution engines say on stderr while they compute (convolution, its transpose, the
sequential convolution)."""
import sys

import torch

_MKL_ASYMMETRIC = ("WARNING: Detected asymmetric padding issue with lowerPad != higherPad, not supported by MKL. "
                   "Switching to GEMM convolution engine. \n")


def asymmetric_padding(options, geo):
    """Whether CNTK 2.7's CPU convolution takes its GEMM engine, warning that MKL cannot pad asymmetrically: an
    auto-padded axis with several output positions whose windows reach further past the operand's end than before
    its start (lower pad < upper pad; as with a kernel of even extent under stride 1). With a single position there
    CNTK keeps MKL, which fails ('mkl err (-127)'; computed here)."""
    return any(a and lo < hi and out > 1 for (_, _, a, _, _), (out, lo, hi) in zip(options, geo))


def warn_asymmetric(y, w, x):
    """CNTK 2.7 on the CPU says so on stderr at each computation of such a convolution (forward or transposed):
    once per forward pass, and in the backward pass once for the operand's gradient and once for the kernel's
    (each when it is computed)."""
    if y.device.type != "cpu":
        return
    sys.stderr.write(_MKL_ASYMMETRIC)
    sys.stderr.flush()
    if torch.is_grad_enabled() and y.requires_grad:
        count = int(w.requires_grad) + int(x.requires_grad)

        def backward_warnings(grad):
            sys.stderr.write(_MKL_ASYMMETRIC * count)
            sys.stderr.flush()
        y.register_hook(backward_warnings)
