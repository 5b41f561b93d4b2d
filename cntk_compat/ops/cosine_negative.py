"""cosine_distance_with_negative_samples: per sample i of the minibatch, the cosine similarity of x_i with y_i
and with num_negative_samples other y's, y_{(i + k * shift) mod N} for k = 1..num_negative_samples, where the
N samples are the valid steps of all sequences of the minibatch in order."""
import torch

from ..core.dtypes import promote
from ..core.registry import OutputSpec, register_op
from ._common import make, sanitize_operands
from .elementwise import EPS_IN_INVERSE


def _cosine_with_negatives(x, y, masks, shift, num_negative, n_dyn):
    mask = masks[0] if masks[0] is not None else masks[1]
    lead = x.shape[:n_dyn]
    xf = x.reshape(-1, x[(0,) * n_dyn].numel())
    yf = y.expand_as(x).reshape(xf.shape)
    valid = torch.ones(xf.shape[0], dtype=torch.bool, device=x.device) if mask is None or n_dyn < 2 else \
        mask.reshape(-1)
    positions = valid.nonzero().reshape(-1)
    n = positions.numel()
    order = torch.arange(n, device=x.device)
    # source row for every (sample, k): the sample itself for k = 0, then the shifted negatives
    offsets = torch.arange(num_negative + 1, device=x.device) * shift
    sources = torch.zeros(xf.shape[0], num_negative + 1, dtype=torch.long, device=x.device)
    if n:
        sources[positions] = positions[(order[:, None] + offsets[None, :]) % n]
    partners = yf[sources]  # (rows, k + 1, D)
    dot = (xf[:, None, :] * partners).sum(-1)
    norms = xf.norm(dim=-1)[:, None] * partners.norm(dim=-1)
    cosine = dot / norms.clamp(min=EPS_IN_INVERSE)
    cosine = torch.where(valid[:, None], cosine, torch.zeros_like(cosine))
    return cosine.reshape(tuple(lead) + (num_negative + 1,))


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
    if int(shift) < 1:
        raise ValueError("cosine_distance_with_negative_samples: shift must be a positive integer, got %r" % (shift,))
    if int(num_negative_samples) < 1:
        raise ValueError("cosine_distance_with_negative_samples: num_negative_samples must be a positive integer, "
                         "got %r" % (num_negative_samples,))
    x, y = sanitize_operands(x, y, names=["x", "y"])
    return make("CosineDistanceWithNegativeSamples", [x, y],
                {"shift": int(shift), "num_negative": int(num_negative_samples)}, name)
