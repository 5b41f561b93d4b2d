"""dropout: random zeroing while training, with CNTK's masks.

CNTK 2.7 draws a CPU dropout mask from the node's ``std::mt19937_64`` engine (seeded with its rngSeed, going on
from call to call) through Boost's ``uniform_real_distribution<T>(0, 1)``, one value per element in CNTK's
column-major order (numpy's C order of the batch-major tensor): an element is dropped when its value is
<= the rate, the others are multiplied by ``1 / (1 - rate)`` rounded to T.  The mask is drawn the same way
here (in numpy, about 0.1 s per million elements, then moved to the tensor's device), so a dropout over
non-sequence data drops the elements CNTK drops.

Over sequences CNTK masks its own minibatch layout (ops/_packed_layout.py), the gaps included, which draw
values too. The mask here is drawn over that layout and read back per
sequence, so a dropout over sequences drops the elements CNTK drops. Inside a recurrent loop (stepwise: one time
step at a time) the masks are drawn over the same layout, in the order CNTK's loop runs its time steps, and each
step reads its sequences' rows (core.loop_steps tells which step).
"""
import numpy as np
import torch

from ..core import loop_steps
from ..core.registry import register_op
from ._common import make, sanitize_operands, spec_like
from ._packed_layout import packed_slots
from .sampling import SentinelValueForAutoSelectRandomSeed, resolve_seed


def _same_infer(inputs, attributes):
    x = inputs[0]
    return [spec_like(x, x._shape)]


def _sequence_keep(random, mask, x, dtype, rate):
    """The keep mask (B, T, n) of a dropout over sequences, drawn over CNTK's packed time-major layout."""
    lengths = [int(n) for n in mask.sum(1).tolist()]
    places, slots, steps = packed_slots(lengths)
    n = int(np.prod(tuple(x.shape[2:]), dtype=np.int64))
    drawn = (random.cntk_uniform(steps * slots * n, dtype) > dtype(rate)).reshape(steps, slots, n)
    keep = np.zeros((x.shape[0], x.shape[1], n), dtype=bool)
    for b, ((slot, start), length) in enumerate(zip(places, lengths)):
        keep[b, :length] = drawn[start:start + length, slot]
    return keep


def _loop_step_keep(random, call, x, dtype, rate):
    """The keep mask (B, n) of a dropout inside a recurrent loop at the loop's step ``call.t``. CNTK runs a loop
    over its packed layout, one time step of all slots at a time (backwards for a future_value loop), each step
    drawing the step's mask over its slots, gaps included; the masks of the whole call are drawn at its first step
    (by time step, in the order CNTK runs them) and each step reads its sequences' rows."""
    n = int(np.prod(tuple(x.shape[1:]), dtype=np.int64))
    if id(random) not in call.kept:
        places, slots, steps = packed_slots(call.lengths)
        drawn = (random.cntk_uniform(steps * slots * n, dtype) > dtype(rate)).reshape(steps, slots, n)
        if call.backward:
            drawn = drawn[::-1]
        call.kept[id(random)] = (drawn, places)
    drawn, places = call.kept[id(random)]
    keep = np.zeros((len(places), n), dtype=bool)
    for b, ((slot, start), length) in enumerate(zip(places, call.lengths)):
        if call.t < length:
            keep[b] = drawn[start + call.t, slot]
    return keep


def _dropout(x, random, training, masks):
    rate = random.attributes["dropoutRate"]  # read at each call: set_attribute may change it after lowering
    if not training or rate == 0.0:
        return x
    dtype = np.float64 if x.dtype == torch.float64 else np.float32
    mask = masks[0]
    if mask is not None and mask.dim() == 2 and mask.shape[1] > 1 and tuple(x.shape[:2]) == tuple(mask.shape) \
            and mask.shape[0] > 0:
        keep = _sequence_keep(random, mask.cpu().numpy(), x, dtype, rate)
    elif loop_steps.current() is not None and x.dim() > 0 and x.shape[0] == loop_steps.current().mask.shape[0]:
        keep = _loop_step_keep(random, loop_steps.current(), x, dtype, rate)
    else:  # no sequence axis: the batch in its order
        keep = random.cntk_uniform(x.numel(), dtype) > dtype(rate)
    scale = torch.from_numpy(np.where(keep, dtype(1.0 / (1.0 - rate)), dtype(0.0)).reshape(tuple(x.shape)))
    return x * scale.to(device=x.device, dtype=x.dtype)


register_op("Dropout", _same_infer, _dropout, uses_training=True, uses_random=True, uses_masks=True, stepwise=True)


def dropout(x, dropout_rate=0.0, seed=SentinelValueForAutoSelectRandomSeed, name=""):
    """Zeroes each element with probability dropout_rate while training (scaling the rest by 1/(1-rate)).
    Nodes with the same explicit seed (and their clones) draw the same masks."""
    if not 0.0 <= float(dropout_rate) < 1.0:
        raise ValueError("dropout_rate must be in the interval [0,1)\n\n(cntk-compat: dropout got dropout_rate=%r)"
                         % (dropout_rate,))
    (x,) = sanitize_operands(x, names=["x"])
    return make("Dropout", [x], {"dropoutRate": float(dropout_rate), "rngSeed": resolve_seed(seed, "dropout"),
                                "rngOffset": 0}, name)
