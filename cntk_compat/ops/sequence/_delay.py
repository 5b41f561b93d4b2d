"""past_value, future_value, delay: the sequence shifted by time_step steps, initial_state filling the gap."""
import numpy as np
import torch

from ...core.function import as_variable
from ...core.initial_state import initial_state_steps, sequence_initial_steps
from ...core.registry import register_op
from ...core.sequence_masks import expand_mask, gather_steps
from ...core.variables import InferredDimension
from .._common import broadcast_shape, make, sanitize_operand, spec_like
from ._select import refuse_static_operand


def _make_infer(op_name):
    def infer(inputs, attributes):
        x = inputs[0]
        # as CNTK: a delay steps along a sequence of a batch, so its operand has exactly those two dynamic axes.
        # No dynamic axes at all is what a placeholder not yet bound has here: checked again once it is bound
        # (The sequences cntk-compat makes with sequence.where, UnfoldFrom's with a length_increase included,
        # carry their new axis alone where CNTK has [#, whereNodeDynamicAxis...]: that axis counts as both.)
        axes = x._dynamic_axes or ()
        where_alone = len(axes) == 1 and axes[0].name.startswith("whereNodeDynamicAxis")
        if axes and not where_alone and not (len(axes) == 2 and x.has_sequence_axis() and x.has_batch_axis()):
            raise RuntimeError("%s: input operand %r with #dynamic axes != 2 (1 sequence axis and 1 batch axis) is "
                             "not supported; a recurrence or a past/future value needs sequence data "
                             "(sequence.input_variable)" % (op_name, x))
        # CNTK infers a delay's shape elementwise from the operand and the initial state, so a non-scalar initial
        # state shapes a loop whose state was typed before it was known (UnfoldFrom's state: a scalar guessed
        # for it when the loop was made from placeholders)
        shape, init = x._shape, inputs[1]._shape
        if shape is not None and init and len(init) <= len(shape) and InferredDimension in init \
                and inputs[1].is_parameter:
            # a Parameter of inferred (-1) dimensions as initial state (a learnt start token) takes the operand's
            inputs[1]._resolve_inferred_shape(tuple(d if d != InferredDimension else s
                                                    for d, s in zip(init, shape[len(shape) - len(init):])))
            init = inputs[1]._shape
        if shape is not None and init:
            shape = broadcast_shape([shape, init], op_name)
        return [spec_like(x, shape)]
    return infer


def _initial_block(x, init, init_dyn, steps, init_mask, from_end, node):
    """initial_state laid out as (B, steps, *shape) for the sequence batch x (B, T, *shape).

    An initial_state with a sequence axis gives its last (past_value) or first (future_value) steps; one of
    length 1 is repeated.
    """
    if init_mask is not None:
        return sequence_initial_steps(init, init_mask, steps, from_end, node).to(x.dtype)
    return initial_state_steps(init, init_dyn, x.shape[0], steps, tuple(x.shape[2:]), x.dtype)


def _past_value(x, init, time_step, init_dyn, node, masks, carried=None, slots=None):
    """carried: the node's CarriedState; slots: the batch's SequenceSlots, or None when nothing is carried."""
    if time_step == 0:  # CNTK 2.7: the operand itself
        return x
    if slots is None:
        steps = min(time_step, x.shape[1])
        head = _initial_block(x, init, init_dyn, steps, masks[1], True, node)
        return torch.cat([head, x[:, :x.shape[1] - steps]], 1)
    head = carried.head(_initial_block(x, init, init_dyn, time_step, masks[1], True, node), slots)
    full = torch.cat([head, x], 1)
    carried.keep(full, masks[0], time_step, slots)
    return full[:, :x.shape[1]]


def _future_value(x, init, time_step, init_dyn, node, masks):
    if time_step == 0:
        return x
    mask, t_size = masks[0], x.shape[1]
    steps = min(time_step, t_size)
    tail = _initial_block(x, init, init_dyn, steps, masks[1], False, node)
    shifted = torch.cat([x[:, steps:], tail], 1)
    valid = torch.cat([mask[:, steps:], mask.new_zeros((mask.shape[0], steps))], 1)
    # a shorter sequence ends inside the padding: its gap starts at its own end
    ends = mask.sum(1, keepdim=True)
    gap = torch.arange(t_size, device=x.device)[None, :] - (ends - steps)
    fill = gather_steps(tail, gap.clamp(0, steps - 1))
    return torch.where(expand_mask(valid, x), shifted, fill)


def _prepare(node):
    # node: how CNTK names the delay in its errors (uid and op)
    return {"time_step": node._attributes["time_step"], "init_dyn": node._inputs[1]._n_dynamic,
            "node": "%s %s" % (node.uid, node._op_name)}


def _delay_public(attrs, node):
    return {"offset": int(attrs["time_step"])}


# only past_value carries state across calls: future_value would need the next batch (a piece's end takes its
# initial state, where CNTK reads zeros past the end of the minibatch)
register_op("PastValue", _make_infer("PastValue"), _past_value, prepare=_prepare, uses_masks=True, delay="past",
            carries_state=True, public_attributes=_delay_public)
register_op("FutureValue", _make_infer("FutureValue"), _future_value, prepare=_prepare, uses_masks=True, delay="future",
            public_attributes=_delay_public)


def _delay_op(op_name, x, initial_state, time_step, name):
    if not isinstance(time_step, (int, np.integer)) or isinstance(time_step, bool) or time_step < 0:
        # CNTK 2.7's binding takes an unsigned integer only (SWIG's NotImplementedError for anything else)
        raise NotImplementedError("%s: time_step must be a non-negative integer, got %r (wrong number or type of "
                                  "arguments for overloaded function)" % (op_name, time_step))
    x = as_variable(x, "x")
    refuse_static_operand(x, op_name, RuntimeError)
    init = sanitize_operand(0 if initial_state is None else initial_state, x._dtype, "initial_state")
    return make(op_name, [x, init], {"time_step": int(time_step)}, name)


def past_value(x, initial_state=None, time_step=1, name=''):
    """Each step's value time_step steps back in its sequence (initial_state before the start)."""
    return _delay_op("PastValue", x, initial_state, time_step, name)


def future_value(x, initial_state=None, time_step=1, name=''):
    """Each step's value time_step steps ahead in its sequence (initial_state past the end)."""
    return _delay_op("FutureValue", x, initial_state, time_step, name)


def delay(x, initial_state=None, time_step=1, name=''):
    """past_value for time_step > 0, future_value for time_step < 0, x itself for 0."""
    if time_step > 0:
        return past_value(x, initial_state, time_step, name)
    if time_step < 0:
        return future_value(x, initial_state, -time_step, name)
    if name:
        from ..elementwise import alias
        return alias(x, name)
    return x
