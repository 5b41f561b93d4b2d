"""Reductions along the sequence axis: reduce_sum, reduce_max, softmax."""
import torch

from ...core.registry import register_op
from .._common import CONTINUED_REDUCTION, make, spec_like
from ...core.sequence_masks import expand_mask
from ._select import sequence_operand, without_sequence_axis


def _infer_reduced(inputs, attributes):
    x = inputs[0]
    return [spec_like(x, x._shape, dynamic_axes=without_sequence_axis(x))]


def _reduce_sum(x, mask):
    return torch.where(expand_mask(mask, x), x, torch.zeros_like(x)).sum(1)


def _reduce_max(x, mask):
    return torch.where(expand_mask(mask, x), x, torch.full_like(x, -float("inf"))).amax(1)


def _softmax(x, mask):
    return torch.softmax(torch.where(expand_mask(mask, x), x, torch.full_like(x, -float("inf"))), 1)


# CNTK 2.7 builds these as blocks of primitives: their op_names and Block uids are CNTK's
register_op("SequenceReduceSum", _infer_reduced, _reduce_sum, uses_mask=True,
            public_name="Sequence::ReduceElements", uid_prefix="Block", refuses_continued=CONTINUED_REDUCTION)
register_op("SequenceReduceMax", _infer_reduced, _reduce_max, uses_mask=True,
            public_name="Sequence::ReduceElements", uid_prefix="Block", refuses_continued=CONTINUED_REDUCTION)
register_op("SequenceSoftmax", lambda inputs, attributes: [spec_like(inputs[0], inputs[0]._shape)], _softmax,
            uses_mask=True, public_name="Sequence::Softmax", uid_prefix="Block", refuses_continued=CONTINUED_REDUCTION)


def reduce_sum(seq, name=''):
    """The sum of each sequence's elements (the result has no sequence axis)."""
    return make("SequenceReduceSum", [sequence_operand(seq, "sequence.reduce_sum", ValueError)], None, name)


def reduce_max(seq, name=''):
    """The elementwise maximum over each sequence (the result has no sequence axis)."""
    return make("SequenceReduceMax", [sequence_operand(seq, "sequence.reduce_max", ValueError)], None, name)


def softmax(seq, name=''):
    """Softmax over the steps of each sequence, elementwise in the static axes."""
    return make("SequenceSoftmax", [sequence_operand(seq, "sequence.softmax", ValueError)], None, name)
