"""Picking steps of sequences: first, last, is_first, is_last, slice, where, gather, scatter."""
import numpy as np
import torch

from ...core.axis import Axis, BATCH_AXIS_NAME
from ...core.function import Function, as_variable
from ...core.registry import OutputSpec, register_op
from .._common import CONTINUED_STEP_ACCESS, make, spec_like
from ...core.sequence_masks import expand_mask, first_step, gather_steps, last_step, lengths_of, pack_by_counts


def without_sequence_axis(x):
    """x's dynamic axes less its sequence axis (None while they are unknown)."""
    if x._dynamic_axes is None:
        return None
    return tuple(a for a in x._dynamic_axes if a.name == BATCH_AXIS_NAME)


def sequence_operand(x, op_name, error=RuntimeError):
    """x as a Variable, refused (with CNTK 2.7's exception type for the op) when its dynamic axes are known and
    hold no sequence axis: sequence ops step along one."""
    x = as_variable(x, "seq")
    refuse_static_operand(x, op_name, ValueError)
    if x._dynamic_axes and x._sequence_axis is None:
        raise error("%s: operand '%s' has no sequence axis (dynamic axes %s); it needs sequence data "
                    "(sequence.input_variable)" % (op_name, x.name or x.uid, [a.name for a in x._dynamic_axes]))
    return x


def refuse_static_operand(x, op_name, error):
    """A Parameter or Constant (no dynamic axes at all) refused with CNTK 2.7's exception type for the op."""
    if x.is_parameter or x.is_constant:
        raise error("%s: operand '%s' is a %s, without dynamic axes; it needs sequence data "
                    "(sequence.input_variable)" % (op_name, x.name or x.uid, "Parameter" if x.is_parameter
                                                   else "Constant"))


def with_sequence_axis(x, axis):
    if x._dynamic_axes is None:
        return None
    return (axis,) + without_sequence_axis(x)


# -- first / last ------------------------------------------------------------------------------------

def _infer_step(inputs, attributes):
    x = inputs[0]
    return [spec_like(x, x._shape, dynamic_axes=without_sequence_axis(x))]


def _no_public_attributes(attrs, node):
    """CNTK's Sequence::Slice and Sequence::Gather are blocks: their attributes are empty."""
    return {}


register_op("SequenceFirst", _infer_step, first_step, uses_mask=True, public_name="Sequence::Slice", uid_prefix="Block",
            public_attributes=_no_public_attributes, refuses_continued=CONTINUED_STEP_ACCESS)
register_op("SequenceLast", _infer_step, last_step, uses_mask=True, public_name="Sequence::Slice", uid_prefix="Block",
            public_attributes=_no_public_attributes, refuses_continued=CONTINUED_STEP_ACCESS)


def first(seq, name=''):
    """The first element of each sequence (the result has no sequence axis)."""
    return make("SequenceFirst", [sequence_operand(seq, "sequence.first")], None, name)


def last(seq, name=''):
    """The last element of each sequence (the result has no sequence axis)."""
    return make("SequenceLast", [sequence_operand(seq, "sequence.last")], None, name)


# -- is_first / is_last -------------------------------------------------------------------------------

def _infer_flag(inputs, attributes):
    # CNTK 2.7 builds the flag from a float constant: its type is float32 until the operand's is known; only an
    # operand of which nothing is known yet (a bare placeholder) leaves the flag's shape unknown too
    x = inputs[0]
    shape = None if x._shape is None and x._dynamic_axes is None else ()
    return [OutputSpec(shape, x._dtype or np.float32, x._dynamic_axes, needs_gradient=False)]


def _is_first(x, mask):
    flag = torch.zeros(mask.shape, dtype=x.dtype, device=x.device)
    flag[:, :1] = 1
    return flag


def _is_last(x, mask):
    steps = torch.arange(mask.shape[1], device=x.device)[None, :]
    return (steps == (lengths_of(mask) - 1)[:, None]).to(x.dtype)


register_op("SequenceIsFirst", _infer_flag, _is_first, uses_mask=True, public_name="Sequence::IsFirst",
            uid_prefix="Block")
register_op("SequenceIsLast", _infer_flag, _is_last, uses_mask=True, public_name="Sequence::IsLast", uid_prefix="Block")


def is_first(seq, name=''):
    """1 at the first step of each sequence, 0 elsewhere (a scalar per step)."""
    return make("SequenceIsFirst", [sequence_operand(seq, "sequence.is_first")], None, name)


def is_last(seq, name=''):
    """1 at the last step of each sequence, 0 elsewhere (a scalar per step)."""
    return make("SequenceIsLast", [sequence_operand(seq, "sequence.is_last")], None, name)


# -- slice ----------------------------------------------------------------------------------------

def _infer_new_axis(inputs, attributes):
    x = inputs[0]
    return [spec_like(x, x._shape, dynamic_axes=with_sequence_axis(x, attributes["new_axis"]))]


def _slice(x, begin_index, end_index, mask):
    lengths = lengths_of(mask)
    begin = torch.full_like(lengths, begin_index) if begin_index >= 0 else lengths + begin_index
    end = lengths + end_index if end_index <= 0 else torch.full_like(lengths, end_index)
    begin = torch.minimum(begin.clamp(min=0), lengths)
    end = torch.minimum(end.clamp(min=0), lengths)
    new_lengths = (end - begin).clamp(min=0)
    if new_lengths.numel() and int(new_lengths.min()) == 0:
        raise RuntimeError("sequence.slice(%d, %d) leaves a sequence of the batch without steps (CNTK 2.7: "
                           "\"AddSequence: Sequences must be a least one frame long.\")" % (begin_index, end_index))
    new_t = int(new_lengths.max()) if new_lengths.numel() else 0
    steps = torch.arange(new_t, device=x.device)[None, :]
    new_mask = steps < new_lengths[:, None]
    out = gather_steps(x, begin[:, None] + steps)
    return torch.where(expand_mask(new_mask, out), out, torch.zeros_like(out)), new_mask


register_op("SequenceSlice", _infer_new_axis, _slice, uses_mask=True, makes_mask=True,
            public_name="Sequence::Slice", uid_prefix="Block", public_attributes=_no_public_attributes,
            refuses_continued=CONTINUED_STEP_ACCESS,
            prepare=lambda node: {"begin_index": node._attributes["begin_index"],
                                  "end_index": node._attributes["end_index"]})


def slice(seq, begin_index, end_index, name=''):
    """Steps begin_index..end_index (exclusive) of each sequence; negative indices count from each
    sequence's end and end_index 0 means the end."""
    seq = sequence_operand(seq, "sequence.slice")
    begin_index, end_index = int(begin_index), int(end_index)
    fixed = end_index - begin_index if (begin_index >= 0 and end_index > 0) or (begin_index < 0 and end_index <= 0) \
        else None
    attributes = {"begin_index": begin_index, "end_index": end_index,
                  "new_axis": _slice_axis(seq, begin_index, end_index, fixed)}
    if fixed == 1:
        # one step of each sequence: CNTK 2.7's result has the batch axis only
        return first(make("SequenceSlice", [seq], attributes), name=name)
    return make("SequenceSlice", [seq], attributes, name)


def _slice_axis(seq, begin_index, end_index, fixed):
    """The new sequence axis of a slice, named as CNTK 2.7 names it (slices of the same length share it)."""
    source = seq._sequence_axis.name if seq._sequence_axis is not None else None
    if source is not None and fixed is not None and fixed > 1:
        return _derived_axis(source, 0, fixed)
    if source is not None and fixed is None and begin_index >= 0 and end_index <= 0 and begin_index - end_index > 0:
        return _derived_axis(source, 1, end_index - begin_index)
    return Axis.new_unique_dynamic_axis("sliceAxis")


def _derived_axis(source, factor, additive):
    """CNTK 2.7's name for a sequence axis ``factor`` times as long as ``source`` plus ``additive`` steps."""
    if factor > 0:
        return Axis("%s_times_%s_%s_%s" % (source, factor, "plus" if additive > 0 else "minus", abs(additive)))
    return Axis("%s_fixedSliceOf_%s" % (source, additive))


# -- where / gather / scatter -------------------------------------------------------------------

def _where_axis(condition, new_sequence_axis_typeinfo):
    """The new sequence axis of a where, named as CNTK 2.7 names it (results of the same length share it)."""
    if new_sequence_axis_typeinfo is None:
        return Axis("whereNodeDynamicAxis_conditionVar_%s" % condition.uid)
    factor, additive = new_sequence_axis_typeinfo
    source = condition._sequence_axis.name if condition._sequence_axis is not None else "unknown"
    return _derived_axis(source, factor, additive)


def _check_typeinfo(typeinfo):
    if typeinfo is not None and (not isinstance(typeinfo, tuple) or len(typeinfo) != 2):
        raise ValueError("new_sequence_axis_typeinfo must be a tuple (scaling_factor, additive_factor), got %r"
                         % (typeinfo,))


def _counts(condition, mask):
    """How many times each step is taken, as CNTK 2.7 counts them: the conditions summed in double precision, and a
    step taken until the steps taken reach the running sum (less a relative margin of the element type's epsilon,
    so that ratios like 1/3 come out right); a positive sum takes at least one step."""
    values = torch.where(mask, condition.reshape(mask.shape).to(torch.float64), torch.zeros((), dtype=torch.float64))
    desired = torch.cumsum(values, 1)
    margin = float(np.float32(1) - np.finfo(np.float32).eps) if condition.dtype != torch.float64 \
        else 1 - np.finfo(np.float64).eps
    ends = torch.ceil(desired * margin).clamp(min=0)
    ends = torch.where(desired > 0, ends.clamp(min=1), ends)
    ends = torch.cummax(ends, 1).values.long()
    counts = ends - torch.nn.functional.pad(ends[:, :-1], (1, 0))
    return torch.where(mask, counts, torch.zeros_like(counts))


def _require_steps(op_name, new_mask):
    """CNTK 2.7 cannot lay out a sequence without steps: a selection that leaves one empty fails."""
    if new_mask.shape[0] and not bool(new_mask[:, :1].all()):
        raise RuntimeError("%s leaves a sequence of the batch without steps (CNTK 2.7: \"AddSequence: Sequences must "
                           "be a least one frame long.\")" % op_name)
    return new_mask


def _where(condition, mask):
    steps = torch.arange(mask.shape[1], device=condition.device, dtype=condition.dtype)
    return pack_by_counts(steps[None, :].expand(mask.shape), _counts(condition, mask))


def _where_with_steps(condition, mask):
    packed, new_mask = _where(condition, mask)
    return packed, _require_steps("sequence.where", new_mask)


def _infer_where(inputs, attributes):
    c = inputs[0]
    if c._shape is not None and int(np.prod(c._shape)) != 1:
        # CNTK 2.7 builds it and refuses it when computed (a ValueError)
        raise ValueError("sequence.where: the condition '%s' has shape %s; where operates on a scalar per step"
                         % (c.name or c.uid, c._shape))
    return [OutputSpec((), c._dtype, with_sequence_axis(c, attributes["new_axis"]), needs_gradient=False)]


register_op("Where", _infer_where, _where_with_steps, uses_mask=True, makes_mask=True,
            refuses_continued=CONTINUED_STEP_ACCESS)


# new_sequence_axis_typeinfo (0, 1) declares that every new sequence has one step: CNTK 2.7 then gives a result
# without a sequence axis (the batch axis only), which these variants compute


def _single_step(packed):
    out = packed[0]
    if out.shape[1] == 0:  # nothing selected anywhere
        return out.new_zeros((out.shape[0],) + tuple(out.shape[2:]))
    return out[:, 0]


def _is_single_step(typeinfo):
    return typeinfo is not None and tuple(typeinfo) == (0, 1)


def _infer_where_single(inputs, attributes):
    c = inputs[0]
    return [OutputSpec((), c._dtype, without_sequence_axis(c), needs_gradient=False)]


register_op("WhereSingleStep", _infer_where_single, lambda condition, mask: _single_step(_where(condition, mask)),
            uses_mask=True)


def where(condition, name='', new_sequence_axis_typeinfo=None):
    """The step indices where condition is non-zero (a step with condition k > 1 repeats k times), as a new
    sequence."""
    _check_typeinfo(new_sequence_axis_typeinfo)
    condition = as_variable(condition, "condition")
    refuse_static_operand(condition, "sequence.where", RuntimeError)
    if _is_single_step(new_sequence_axis_typeinfo):
        return Function._composite(Function._primitive("WhereSingleStep", [condition], {}, name,
                                                       display_name="Where").outputs)
    return where_on_new_axis(condition, name, new_sequence_axis_typeinfo)


def where_on_new_axis(condition, name='', new_sequence_axis_typeinfo=None):
    """where whose result always has a new sequence axis, also for typeinfo (0, 1)."""
    condition = as_variable(condition, "condition")
    return make("Where", [condition], {"new_axis": _where_axis(condition, new_sequence_axis_typeinfo)}, name)


def _gather(seq, condition, masks):
    """seq's steps at sequence.where(condition)'s indices: a step repeated as often as where repeats it."""
    return pack_by_counts(seq, _counts(condition, masks[0]))


def _gather_with_steps(seq, condition, masks):
    packed, new_mask = _gather(seq, condition, masks)
    return packed, _require_steps("sequence.gather", new_mask)


register_op("SequenceGather", _infer_new_axis, _gather_with_steps, uses_masks=True, makes_mask=True,
            public_name="Sequence::Gather", uid_prefix="Block", public_attributes=_no_public_attributes)


register_op("SequenceGatherSingleStep", _infer_step,
            lambda seq, condition, masks: _single_step(_gather(seq, condition, masks)), uses_masks=True)


def gather(seq, condition, new_sequence_axis_typeinfo=None, name=''):
    """The elements of seq at the steps where condition is non-zero, packed as a new (shorter) sequence."""
    _check_typeinfo(new_sequence_axis_typeinfo)
    seq, condition = as_variable(seq, "seq"), as_variable(condition, "condition")
    refuse_static_operand(condition, "sequence.gather", RuntimeError)
    if _is_single_step(new_sequence_axis_typeinfo):
        return Function._composite(Function._primitive("SequenceGatherSingleStep", [seq, condition], {}, name,
                                                       display_name="SequenceGather").outputs)
    return gather_on_new_axis(seq, condition, new_sequence_axis_typeinfo, name)


def gather_on_new_axis(seq, condition, new_sequence_axis_typeinfo=None, name=''):
    """gather whose result always has a new sequence axis, also for typeinfo (0, 1) (CNTK's files spell
    sequence.slice of one step so: a Where that names its new ordered axis)."""
    seq, condition = as_variable(seq, "seq"), as_variable(condition, "condition")
    return make("SequenceGather", [seq, condition],
                {"new_axis": _where_axis(condition, new_sequence_axis_typeinfo)}, name)


def _scatter(seq, condition, masks):
    """The inverse of gather: step j of seq added at sequence.where(condition)'s j-th index (so the copies of a
    step that where repeats add up there, as in CNTK 2.7), zeros elsewhere."""
    mask = masks[1]
    counts = _counts(condition, mask)
    if masks[0] is None:  # one value per sequence: placed at every selected step
        placed = seq.unsqueeze(1).expand((seq.shape[0], mask.shape[1]) + tuple(seq.shape[1:]))
        return torch.where(expand_mask(counts > 0, placed), placed, torch.zeros_like(placed))
    totals, lengths = counts.sum(1), masks[0].sum(1)
    if not torch.equal(totals.to(lengths.dtype), lengths):
        k = int(torch.nonzero(totals.to(lengths.dtype) != lengths)[0, 0])
        raise ValueError("sequence.scatter: sequence %d of condition selects %d steps but seq has %d elements to "
                         "place (CNTK 2.7: the minibatch layout of index and source data must be the same)"
                         % (k, int(totals[k]), int(lengths[k])))
    steps = torch.arange(mask.shape[1], device=seq.device)
    targets, selected = pack_by_counts(steps[None, :].expand(mask.shape), counts)
    n = min(targets.shape[1], seq.shape[1])
    valid = selected[:, :n] & masks[0][:, :n]
    values = torch.where(expand_mask(valid, seq[:, :n]), seq[:, :n], torch.zeros_like(seq[:, :n]))
    index = torch.where(valid, targets[:, :n], torch.zeros_like(targets[:, :n]))
    index = index.reshape(tuple(index.shape) + (1,) * (seq.dim() - 2)).expand(values.shape)
    out = seq.new_zeros((seq.shape[0], mask.shape[1]) + tuple(seq.shape[2:]))
    return out.scatter_add(1, index, values)


def _infer_scatter(inputs, attributes):
    seq, condition = inputs
    axes = condition._dynamic_axes
    return [spec_like(seq, seq._shape, dynamic_axes=axes)]


register_op("SequenceScatter", _infer_scatter, _scatter, uses_masks=True, public_name="Sequence::Scatter",
            uid_prefix="Block")


def scatter(seq, condition, new_sequence_axis_typeinfo=None, name=''):
    """The inverse of gather: seq's elements placed, in order, at the steps where condition is non-zero (zeros
    elsewhere), on condition's sequence axis."""
    _check_typeinfo(new_sequence_axis_typeinfo)
    return make("SequenceScatter", [as_variable(seq, "seq"), as_variable(condition, "condition")], None, name)


__all__ = ["first", "last", "is_first", "is_last", "slice", "where", "gather", "scatter"]
