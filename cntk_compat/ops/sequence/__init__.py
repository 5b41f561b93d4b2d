"""cntk.ops.sequence: operations along the sequence axis.

At run time a sequence batch is a padded (B, T, *shape) tensor with a (B, T) bool mask of the valid
steps; every op here works on the whole batch at once. Ops that change sequence lengths (slice, where,
gather, to_sequence) make a new sequence axis whose mask the lowering carries on.
"""
import numpy as np

from ...core.axis import Axis
from ...default_options import default_override_or, get_default_override
from ...core.variables import sequence_input_variable
from ._delay import delay, future_value, past_value
from ._layout import broadcast_as, unpack
from ._reduce import reduce_max, reduce_sum, softmax
from ._select import first, gather, is_first, is_last, last, scatter, slice, where


def input_variable(shape, dtype=default_override_or(np.float32), needs_gradient=False, is_sparse=False,
                   sequence_axis=Axis.default_dynamic_axis(), name=''):
    """A data input with the batch axis and a sequence axis (dtype: default_options' dtype, else float32)."""
    dtype = get_default_override(input_variable, dtype=dtype)
    return sequence_input_variable(shape, dtype, needs_gradient, is_sparse, sequence_axis, name)


def input(shape, dtype=default_override_or(np.float32), needs_gradient=False, is_sparse=False,
          sequence_axis=Axis.default_dynamic_axis(), name=''):
    """Deprecated alias of input_variable."""
    return input_variable(shape, dtype, needs_gradient, is_sparse, sequence_axis, name)


__all__ = [
    "input_variable", "input", "past_value", "future_value", "delay", "first", "last", "is_first", "is_last",
    "slice", "reduce_sum", "reduce_max", "softmax", "broadcast_as", "gather", "scatter", "where", "unpack", "Axis",
    "default_override_or"
]
