"""Moving data between sequence layouts: broadcast_as, unpack, to_sequence, to_sequence_like,
reconcile_dynamic_axes."""
import torch

from ...core.axis import Axis
from ...core.function import as_variable
from ...core.registry import OutputSpec, register_op
from ...core.variables import FreeDimension
from .._common import CONTINUED_REDUCTION, make, sanitize_operand, spec_like
from ...core.sequence_masks import expand_mask, mask_from_lengths
from ._select import refuse_static_operand, sequence_operand, with_sequence_axis, without_sequence_axis


def _infer_like(inputs, attributes):
    x, layout = inputs
    return [spec_like(x, x._shape, dynamic_axes=layout._dynamic_axes)]


def _onto_layout(x, layout, mask, x_has_sequence, x_has_batch):
    """x laid out like the sequence batch layout: a batch-only x is repeated along the sequence axis, a
    constant along both."""
    if x_has_sequence:
        return x
    if not x_has_batch:
        return x.reshape((1, 1) + tuple(x.shape)).expand(tuple(mask.shape) + tuple(x.shape))
    return x.unsqueeze(1).expand((x.shape[0], mask.shape[1]) + tuple(x.shape[1:]))


def _prepare_like(node):
    x = node._inputs[0]
    return {"x_has_sequence": x._sequence_axis is not None, "x_has_batch": x._n_dynamic > 0}


def _reconcile(x, layout, masks, x_has_sequence, x_has_batch):
    """x on the dynamic axes of layout. Without a sequence axis there (e.g. both are sequence.last of
    sequences on different axes, as in CNTK_303) only the batch axis is shared: x is taken as it is, a
    constant repeated per sample."""
    if masks[1] is not None:
        return _onto_layout(x, layout, masks[1], x_has_sequence, x_has_batch)
    if not x_has_batch:
        return x.reshape((1,) + tuple(x.shape)).expand((layout.shape[0],) + tuple(x.shape))
    if x.shape[0] != layout.shape[0]:
        raise ValueError("reconcile_dynamic_axes: the operand has %d samples, the layout it is put on %d"
                         % (x.shape[0], layout.shape[0]))
    return x


# both act on each step by itself, so they may sit inside a recurrent loop
register_op("SequenceBroadcastAs", _infer_like, _onto_layout, prepare=_prepare_like, uses_mask=True, stepwise=True,
            public_name="Sequence::BroadcastAs", uid_prefix="Block")
register_op("ReconcileDynamicAxis", _infer_like, _reconcile, prepare=_prepare_like, uses_masks=True, stepwise=True)


def broadcast_as(operand, broadcast_as_operand, name=''):
    """operand (without a sequence axis) repeated at every step of the sequences of broadcast_as_operand."""
    layout = as_variable(broadcast_as_operand, "broadcast_as_operand")
    refuse_static_operand(layout, "sequence.broadcast_as", ValueError)
    return make("SequenceBroadcastAs", [sanitize_operand(operand, layout._dtype, "operand"), layout], None, name)


def reconcile_dynamic_axes(x, dynamic_axes_as, name=''):
    """x with the dynamic axes of dynamic_axes_as (broadcast along its sequence axis if x has none)."""
    return make("ReconcileDynamicAxis", [as_variable(x, "x"), as_variable(dynamic_axes_as, "dynamic_axes_as")],
                None, name)


# -- unpack -------------------------------------------------------------------------------------

def _infer_unpack(inputs, attributes):
    x = inputs[0]
    axes = without_sequence_axis(x)
    shape = None if x._shape is None else (FreeDimension,) + tuple(x._shape)
    specs = [spec_like(x, shape, dynamic_axes=axes)]
    if not attributes["no_mask_output"]:
        specs.append(OutputSpec((FreeDimension,), x._dtype, axes, needs_gradient=False,
                                name_suffix="_UnpackSequenceMask"))
    return specs


def _unpack(x, padding_value, no_mask_output, mask):
    value = torch.where(expand_mask(mask, x), x, torch.full_like(x, padding_value))
    if no_mask_output:
        return value
    return value, mask.to(x.dtype)


register_op("UnpackSequence", _infer_unpack, _unpack, uses_mask=True, public_name="UnpackSequenceOp",
            refuses_continued=CONTINUED_REDUCTION,
            prepare=lambda node: {"padding_value": node._attributes["padding_value"],
                                  "no_mask_output": node._attributes["no_mask_output"]},
            public_attributes=lambda attrs, node: {
                "sequenceUnpackPaddingValue": float(attrs["padding_value"]),
                "sequenceUnpackSuppressMaskOutput": bool(attrs["no_mask_output"])})


def unpack(x, padding_value, no_mask_output=False, name=''):
    """The padded tensor of each sequence (the sequence axis becomes static axis 0) and, unless
    no_mask_output, the (steps,) mask of valid steps."""
    x = sequence_operand(x, "sequence.unpack", ValueError)
    return make("UnpackSequence", [x], {"padding_value": float(padding_value),
                                        "no_mask_output": bool(no_mask_output)}, name)


# -- to_sequence / to_sequence_like ---------------------------------------------------------------

def _infer_to_sequence(inputs, attributes):
    x = inputs[0]
    if x._sequence_axis is not None:
        raise ValueError("to_sequence: the operand already has a sequence axis (%s)" % x._sequence_axis.name)
    if x._shape is not None and len(x._shape) < 1:
        raise ValueError("to_sequence: the operand needs at least one static axis (the one that becomes the "
                         "sequence axis)")
    shape = None if x._shape is None else tuple(x._shape[1:])
    return [spec_like(x, shape, dynamic_axes=with_sequence_axis(x, attributes["new_axis"]))]


def _to_sequence(x, *lengths):
    if lengths:
        n = lengths[0].reshape(-1).round().long()
    else:
        n = torch.full((x.shape[0],), x.shape[1], dtype=torch.long, device=x.device)
    return x, mask_from_lengths(n, x.shape[1])


register_op("ToSequenceOp", _infer_to_sequence, _to_sequence, makes_mask=True)


def to_sequence(x, sequence_lengths=None, sequence_axis_name_prefix='toSequence_', name=''):
    """x's static axis 0 becomes a sequence axis; sequence_lengths (one scalar per batch item) gives each
    sequence's length (all full length when None)."""
    x = as_variable(x, "x")
    inputs = [x]
    if sequence_lengths is not None:
        inputs.append(as_variable(sequence_lengths, "sequence_lengths"))
    axis = Axis("%s%s" % (sequence_axis_name_prefix, inputs[-1].uid))
    return make("ToSequenceOp", inputs, {"new_axis": axis}, name)


def _infer_to_sequence_like(inputs, attributes):
    x, like = inputs
    if x._shape is not None and len(x._shape) < 1:
        raise ValueError("to_sequence_like: the operand needs at least one static axis")
    shape = None if x._shape is None else tuple(x._shape[1:])
    return [spec_like(x, shape, dynamic_axes=like._dynamic_axes)]


def _to_sequence_like(x, like, mask):
    t_size = mask.shape[1]
    if x.shape[1] < t_size:
        raise ValueError("to_sequence_like: the operand has %d steps, fewer than the %d of the sequences it "
                         "should be laid out like" % (x.shape[1], t_size))
    return x[:, :t_size]


register_op("ToSequenceLikeOp", _infer_to_sequence_like, _to_sequence_like, uses_mask=True)


def to_sequence_like(x, dynamic_axes_like, name=''):
    """x's static axis 0 becomes the sequence axis of dynamic_axes_like (with its sequence lengths)."""
    return make("ToSequenceLikeOp", [as_variable(x, "x"), as_variable(dynamic_axes_like, "dynamic_axes_like")],
                None, name)
