"""cosine_distance_with_negative_samples: per sample of the minibatch, the cosine similarity of x with its own y and
with num_negative_samples other y's. As CNTK 2.7 computes it, the samples are the columns of CNTK's packed minibatch
layout (ops/_packed_layout.py: time-major, gaps included, the plain samples in order without a sequence axis), and
the k-th negative of column c is column (c + shift + k - 1) mod (number of columns): consecutive columns from the
shift on, a gap holding zeros (a cosine of 0)."""
import torch

from ..core.dtypes import promote
from ..core.registry import OutputSpec, register_op
from ._common import make, sanitize_operands
from ._packed_layout import packed_columns
from .elementwise import EPS_IN_INVERSE


def _cosine_with_negatives(x, y, masks, shift, num_negative, n_dyn):
    mask = masks[0] if masks[0] is not None else masks[1]
    lead = x.shape[:n_dyn]
    xf = x.reshape(-1, x[(0,) * n_dyn].numel())
    yf = y.expand_as(x).reshape(xf.shape)
    if mask is None or n_dyn < 2:
        valid = torch.ones(xf.shape[0], dtype=torch.bool, device=x.device)
        columns, n = torch.arange(xf.shape[0], device=x.device), xf.shape[0]
    else:
        valid = mask.reshape(-1)
        columns, n = packed_columns(mask)
    # y laid out by columns (zeros in the gaps); each valid sample's partners: itself, then the shifted columns
    y_columns = yf.new_zeros((n,) + tuple(yf.shape[1:])).index_copy(0, columns, yf[valid])
    offsets = torch.cat([torch.zeros(1, dtype=torch.long, device=x.device),
                         torch.arange(num_negative, device=x.device) + shift])
    partners = y_columns[(columns[:, None] + offsets[None, :]) % max(n, 1)]  # (valid samples, k + 1, D)
    xv = xf[valid]
    dot = (xv[:, None, :] * partners).sum(-1)
    norms = xv.norm(dim=-1)[:, None] * partners.norm(dim=-1)
    cosine = dot / norms.clamp(min=EPS_IN_INVERSE)
    out = cosine.new_zeros((xf.shape[0], num_negative + 1)).index_put((valid.nonzero().reshape(-1),), cosine)
    return out.reshape(tuple(lead) + (num_negative + 1,))


def _infer(inputs, attributes):
    x, y = inputs
    if x._shape is not None and y._shape is not None and tuple(x._shape) != tuple(y._shape):
        raise ValueError("cosine_distance_with_negative_samples: x and y must have the same shape, got %s and %s"
                         % (x._shape, y._shape))
    return [OutputSpec((attributes["num_negative"] + 1,), promote(x._dtype, y._dtype), x._dynamic_axes)]


register_op("CosineDistanceWithNegativeSamples", _infer, _cosine_with_negatives, uses_masks=True,
            public_name="CosDistanceWithNegativeSamples",
            prepare=lambda node: {"shift": node._attributes["shift"],
                                  "num_negative": node._attributes["num_negative"],
                                  "n_dyn": node._inputs[0]._n_dynamic})


def cosine_distance_with_negative_samples(x, y, shift, num_negative_samples, name=""):
    """(num_negative_samples + 1) cosine similarities per sample: with its own y, then with shifted other y's."""
    for argument, value in (("shift", shift), ("num_negative_samples", num_negative_samples)):
        if int(value) < 0:   # CNTK 2.7's binding takes unsigned sizes only (a shift or a count of 0 computes)
            raise NotImplementedError("cosine_distance_with_negative_samples: %s must be a non-negative integer, "
                                      "got %r (wrong number or type of arguments)" % (argument, value))
    x, y = sanitize_operands(x, y, names=["x", "y"])
    return make("CosineDistanceWithNegativeSamples", [x, y],
                {"shift": int(shift), "num_negative": int(num_negative_samples)}, name)
