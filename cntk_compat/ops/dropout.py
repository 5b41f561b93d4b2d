"""dropout: random zeroing while training, drawn from the node's own random stream."""
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
    keep = torch.rand(x.shape, generator=random.generator(x.numel(), x.device), device=x.device) >= rate
    return x * keep.to(x.dtype) / (1.0 - rate)


register_op("Dropout", _same_infer, _dropout, uses_training=True, uses_random=True)


def dropout(x, dropout_rate=0.0, seed=SentinelValueForAutoSelectRandomSeed, name=""):
    """Zeroes each element with probability dropout_rate while training (scaling the rest by 1/(1-rate)).
    Nodes with the same explicit seed (and their clones) draw the same masks."""
    if not 0.0 <= float(dropout_rate) < 1.0:
        raise ValueError("dropout: dropout_rate must be in [0, 1), got %r" % (dropout_rate,))
    (x,) = sanitize_operands(x, names=["x"])
    return make("Dropout", [x], {"dropoutRate": float(dropout_rate), "rngSeed": resolve_seed(seed, "dropout"),
                                "rngOffset": 0}, name)
