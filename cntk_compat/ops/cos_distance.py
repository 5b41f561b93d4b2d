"""cosine_distance as CNTK 2.7's CosDistance primitive: per sample, (x . y) * (1 / |x|) * (1 / |y|) over all static
axes. CNTK's guarded inverse makes 1 / |0| = 1e30, so a zero vector's cosine is 0 (its gradient NaN, as in CNTK).
An operand without a sequence axis is broadcast along the other's."""
import torch

from ..core import rounding
from ..core.dtypes import promote
from ..core.native_errors import RuntimeValueError
from ..core.registry import OutputSpec, register_op
from ._common import make, operand_dynamic_axes, sanitize_operands
from .elementwise import chain, guarded_divisor

def _sum(t, dims):
    """t summed over dims; a rank-0 sample (no dims) is its own sum (torch's sum over () would sum everything)."""
    return t.sum(dims) if dims else t


def _per_sample(t, static_rank):
    return t.reshape(t.shape + (1,) * static_rank)


class _CosDistance(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, static_rank):
        dims = tuple(range(x.dim() - static_rank, x.dim()))
        inv_x = 1.0 / guarded_divisor(rounding.sqrt(_sum(x * x, dims)))
        inv_y = 1.0 / guarded_divisor(rounding.sqrt(_sum(y * y, dims)))
        out = _sum(x * y, dims) * inv_x * inv_y
        ctx.static_rank = static_rank
        ctx.save_for_backward(x, y, inv_x, inv_y, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, y, inv_x, inv_y, out = ctx.saved_tensors
        r = ctx.static_rank
        g = _per_sample(grad, r)
        both = _per_sample(inv_x * inv_y, r)
        # CNTK subtracts each term from a zero gradient: a zero term gives +0
        gx = torch.rsub(chain(g, x * _per_sample(out * (inv_x * inv_x), r) - y * both), 0.0)
        gy = torch.rsub(chain(g, y * _per_sample(out * (inv_y * inv_y), r) - x * both), 0.0)
        return gx, gy, None


def _cos_distance(x, y, n_dyn_x, n_dyn_y, static_rank):
    # a sample-only operand meets a sequence: repeat it at every step
    if n_dyn_x < n_dyn_y:
        x = x.unsqueeze(1).expand(y.shape)
    elif n_dyn_y < n_dyn_x:
        y = y.unsqueeze(1).expand(x.shape)
    return _CosDistance.apply(x, y, static_rank)


def _infer(inputs, attributes):
    x, y = inputs
    if x._shape is not None and y._shape is not None and tuple(x._shape) != tuple(y._shape) \
            and -1 not in x._shape and -1 not in y._shape:
        raise RuntimeValueError("cosine_distance: x and y must have the same shape (CNTK's CosDistance takes the inner "
                         "product of equal-sized samples), got x %s and y %s" % (x._shape, y._shape))
    for a, b in ((x, y), (y, x)):
        if (a.is_parameter or a.is_constant) and b._dynamic_axes:
            # CNTK 2.7 builds it and cannot compute it (its node reads both operands per sample)
            raise RuntimeError("cosine_distance: '%s' has no dynamic axes while '%s' has %s; CNTK's CosDistance "
                               "reads both operands per sample" % (a.name or a.uid, b.name or b.uid,
                                                                   [ax.name for ax in b._dynamic_axes]))
    return [OutputSpec((), promote(x._dtype, y._dtype), operand_dynamic_axes("CosDistance", inputs))]


register_op("CosDistance", _infer, _cos_distance, reconciles=True,
            prepare=lambda node: {"n_dyn_x": node._inputs[0]._n_dynamic, "n_dyn_y": node._inputs[1]._n_dynamic,
                                  "static_rank": len(node._inputs[0]._shape)})


def cosine_distance(x, y, name=""):
    """The cosine of the angle between x and y (over all their static axes)."""
    x, y = sanitize_operands(x, y, names=["x", "y"])
    return make("CosDistance", [x, y], None, name)
