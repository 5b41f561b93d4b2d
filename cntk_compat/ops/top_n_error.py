"""classification_error with topN > 1 as CNTK 2.7's ClassificationError primitive: the number of samples of the
minibatch whose target class (the one-hot target's hot index) is not among the topN highest outputs, one scalar
for the minibatch without gradient (a Trainer divides it by the sample count, as any aggregated criterion). As in
CNTK, a sample (of any shape) is one vector: its target is the index of the target's largest value (the first of
equal ones), and it misses when that index is not among the topN largest outputs, equal outputs ranked by index."""
import numpy as np
import torch

from ..core.dtypes import promote
from ..core.registry import OutputSpec, register_op
from ..core.variables import Constant
from ._common import make, require_matching_dynamic_axes
from ._evaluation_only import evaluation_only


def _top_n_misses(z, y, k, masks, n_dyn):
    return evaluation_only("ClassificationError", lambda z, y: _misses(z, y, k, masks, n_dyn), z, y)


def _misses(z, y, k, masks, n_dyn):
    z = z.reshape(z.shape[:n_dyn] + (-1,))
    y = y.reshape(z.shape)
    target = y.argmax(-1, keepdim=True)
    target_score = z.gather(-1, target)
    before = torch.arange(z.shape[-1], device=z.device) < target
    rank = (z > target_score).sum(-1) + ((z == target_score) & before).sum(-1)
    missed = (rank >= k.to(rank.dtype)).to(z.dtype)
    mask = next((m for m in masks[:2] if m is not None), None)
    if mask is not None:
        missed = torch.where(mask, missed, torch.zeros_like(missed))
    return missed.sum()


def _infer(inputs, attributes):
    z, y, _ = inputs
    require_matching_dynamic_axes("ClassificationError", (z, y))
    return [OutputSpec((), promote(z._dtype, y._dtype), (), needs_gradient=False)]


register_op("ClassificationError", _infer, _top_n_misses, uses_masks=True,
            prepare=lambda node: {"n_dyn": node._inputs[0]._n_dynamic})


def top_n_error(z, y, top_n, name=""):
    """The ClassificationError primitive over z and y (Variables) for top_n > 1."""
    if z._shape is not None and min(z._shape, default=1) >= 0 and top_n > int(np.prod(z._shape)):
        # CNTK 2.7 builds it and refuses it when computed
        raise ValueError("classification_error: topN (%d) exceeds the %d values of each sample of '%s'"
                         % (top_n, int(np.prod(z._shape)), z.name or z.uid))
    return make("ClassificationError", [z, y, Constant(float(top_n), dtype=z._dtype)], None, name)
