"""weighted_binary_cross_entropy as CNTK 2.7's Logistic primitive: one number for the whole minibatch.

For predictions p, targets y and weights w (each one value per sample), with t = log(2yp + (1 - y) - p) (CNTK's
log: below 1e-37 it is -85.1), the value is -N * sum(w * t) / sum(w), N the number of columns of CNTK's minibatch
matrix (the samples, or for sequences CNTK's packed layout including its gaps, where w counts as 0). The gradient
with respect to p is CNTK's: -w (2y - 1) / (2yp + (1 - y) - p), not scaled by N / sum(w); CNTK computes none for
y and w."""
import torch

from ..core.dtypes import promote
from ..core.native_errors import RuntimeValueError
from ..core.registry import OutputSpec, register_op
from ._common import make, operand_dynamic_axes, sanitize_operands
from .elementwise import _log, guarded_divisor
from ._packed_layout import packed_slots

class _WeightedLogistic(torch.autograd.Function):
    @staticmethod
    def forward(ctx, p, y, w, columns):
        r = 2 * y * p + (1 - y) - p
        t = _log(r)
        ctx.save_for_backward(y, w, r)
        return -(columns * ((w * t).sum() / w.sum()))

    @staticmethod
    def backward(ctx, grad):
        y, w, r = ctx.saved_tensors
        if ctx.needs_input_grad[1] or ctx.needs_input_grad[2]:
            raise ValueError("weighted_binary_cross_entropy (CNTK's Logistic operation) cannot compute the gradient "
                             "for its target or weight input")
        return -grad * ((2 * y - 1) * w / guarded_divisor(r)), None, None, None


def _samples(x, mask, n_dyn):
    """The one value per sample of x, zeros at the steps past a sequence's end."""
    x = x.reshape(x.shape[:n_dyn])
    return x if mask is None else torch.where(mask, x, torch.zeros_like(x))


def _weighted_logistic(p, y, w, masks, n_dyn):
    for x, role in zip((p, y, w), ("output", "target", "weight")):
        if x[(0,) * n_dyn].numel() != 1:
            raise ValueError("weighted_binary_cross_entropy: The input matrix dimensions do not match: %s holds %s "
                             "values per sample, CNTK's Logistic operation reads one"
                             % (role, tuple(x.shape[n_dyn:])))
    mask = next((m for m in masks if m is not None), None)
    if mask is None:
        columns = p.shape[0] if n_dyn else 1
    else:
        _, slots, steps = packed_slots(mask.sum(1).tolist())
        columns = slots * steps
    return _WeightedLogistic.apply(_samples(p, mask, n_dyn), _samples(y, mask, n_dyn),
                                   _samples(w, mask, n_dyn), columns)


def _infer(inputs, attributes):
    # Like CNTK, operands holding more than one value per sample are refused when evaluated, not here.
    axes = [v._dynamic_axes for v in inputs if v._dynamic_axes is not None]
    if any(not a for a in axes) and any(axes):
        raise RuntimeValueError("weighted_binary_cross_entropy: output, target and weight must all be minibatch "
                                "data (CNTK's Logistic operation reads one value of each per sample)")
    operand_dynamic_axes("Logistic", inputs, broadcast=False)
    return [OutputSpec((), promote(*[v._dtype for v in inputs]), ())]


register_op("Logistic", _infer, _weighted_logistic, uses_masks=True,
            prepare=lambda node: {"n_dyn": node._inputs[0]._n_dynamic})


def weighted_binary_cross_entropy(output, target, weight, name=""):
    """The weighted binary cross entropy of the minibatch, as CNTK 2.7 computes it (see the module docstring)."""
    p, y, w = sanitize_operands(output, target, weight, names=["output", "target", "weight"])
    return make("Logistic", [p, y, w], None, name)
