"""dropout: random zeroing while training, with CNTK's masks.

CNTK 2.7 draws a CPU dropout mask from the node's ``std::mt19937_64`` engine (seeded with its rngSeed, going on
from call to call) through Boost's ``uniform_real_distribution<T>(0, 1)``, one value per element in CNTK's
column-major order (numpy's C order of the batch-major tensor): an element is dropped when its value is
<= the rate, the others are multiplied by ``1 / (1 - rate)`` rounded to T.  The mask is drawn the same way
here (in numpy, about 0.1 s per million elements, then moved to the tensor's device), so a dropout over
non-sequence data drops the elements CNTK drops.
"""
import numpy as np
import torch

from ..core.registry import register_op
from ._common import make, sanitize_operands, spec_like
from .sampling import SentinelValueForAutoSelectRandomSeed, resolve_seed


def _same_infer(inputs, attributes):
    x = inputs[0]
    return [spec_like(x, x._shape)]


def _dropout(x, random, training):
    rate = random.attributes["dropoutRate"]  # read at each call: set_attribute may change it after lowering
    if not training or rate == 0.0:
        return x
    dtype = np.float64 if x.dtype == torch.float64 else np.float32
    keep = random.cntk_uniform(x.numel(), dtype) > dtype(rate)
    scale = torch.from_numpy(np.where(keep, dtype(1.0 / (1.0 - rate)), dtype(0.0)).reshape(tuple(x.shape)))
    return x * scale.to(device=x.device, dtype=x.dtype)


register_op("Dropout", _same_infer, _dropout, uses_training=True, uses_random=True)


def dropout(x, dropout_rate=0.0, seed=SentinelValueForAutoSelectRandomSeed, name=""):
    """Zeroes each element with probability dropout_rate while training (scaling the rest by 1/(1-rate)).
    Nodes with the same explicit seed (and their clones) draw the same masks."""
    if not 0.0 <= float(dropout_rate) < 1.0:
        raise ValueError("dropout: dropout_rate must be in [0, 1), got %r" % (dropout_rate,))
    (x,) = sanitize_operands(x, names=["x"])
    return make("Dropout", [x], {"dropoutRate": float(dropout_rate), "rngSeed": resolve_seed(seed, "dropout"),
                                "rngOffset": 0}, name)
