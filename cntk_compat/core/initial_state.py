"""The initial state of a delay in a recurrent loop, laid out as time steps."""
import torch

from .native_errors import announced
from .sequence_masks import gather_steps


def sequence_initial_steps(init, init_mask, steps, from_end, node):
    """An initial state that is a sequence batch (B, T, *shape) laid out as ``steps`` steps (B, steps, *shape): each
    sequence's last (past_value: ``from_end``) or first ``steps`` items, or its one item repeated. CNTK 2.7 refuses
    a sequence of another length shorter than ``steps``, naming the delay ``node`` by its uid and op."""
    lengths = init_mask.sum(1, keepdim=True)
    if steps > 1 and bool(((lengths > 1) & (lengths < steps)).any()):
        raise announced(RuntimeError, "%s operation requires second argument (initialState) sequences to be either "
                                      "of length 1 or at least as long as the timestep (%d)." % (node, steps))
    offsets = torch.arange(steps, device=init.device)[None, :]
    index = (lengths - steps + offsets) if from_end else offsets.expand(init.shape[0], steps)
    return gather_steps(init, torch.where(lengths > 1, index, torch.zeros_like(index)))


def initial_state_steps(init, init_dynamic, batch, steps, shape, dtype):
    """A delay's initial state laid out as ``steps`` steps (B, steps, *shape): a constant broadcast, or one
    value per sequence (init_dynamic). Leading 1s of its shape that ``shape`` has no axes for are dropped (a
    scalar initial_state is often given as shape (1,))."""
    lead = init.shape[0] if init_dynamic else 1
    static = tuple(init.shape[1:] if init_dynamic else init.shape)
    extra = len(static) - len(shape)
    if extra > 0 and all(d == 1 for d in static[:extra]):
        static = static[extra:]
    full = init.reshape((lead, 1) + (1,) * (len(shape) - len(static)) + static)
    # a free dimension (known only from the data) stays as the initial state has it (1 for a broadcast
    # constant): the step's ops broadcast it against the inputs' actual size
    return full.expand((batch, steps) + tuple(d if d >= 0 else -1 for d in shape)).to(dtype)


def steps_as_initial_state(block, steps_shape, shape, dtype):
    """A sequence initial state already laid out as steps (B, steps, *its shape) broadcast to the delay's ``shape``."""
    static = tuple(block.shape[2:])
    extra = len(static) - len(shape)
    if extra > 0 and all(d == 1 for d in static[:extra]):
        static = static[extra:]
    full = block.reshape(tuple(steps_shape) + (1,) * (len(shape) - len(static)) + static)
    return full.expand(tuple(steps_shape) + tuple(d if d >= 0 else -1 for d in shape)).to(dtype)
