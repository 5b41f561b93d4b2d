"""unpack_batch / to_batch: moving the batch axis into the static shape (as a FreeDimension) and back."""
from ..core.axis import Axis
from ..core.registry import OutputSpec, register_op
from ..core.variables import FreeDimension
from ._common import make, sanitize_operands


def _unpack_batch_infer(inputs, attributes):
    (x,) = inputs
    if x._dynamic_axes is not None and (x._sequence_axis is not None or not x._has_batch):
        raise RuntimeError("unpack_batch: the operand must have the batch axis and no sequence axis, got dynamic "
                         "axes %s (use sequence.unpack for sequences)" % (x.dynamic_axes,))
    shape = None if x._shape is None else (FreeDimension,) + tuple(x._shape)
    return [OutputSpec(shape, x._dtype, (), x._is_sparse)]


def _to_batch_infer(inputs, attributes):
    (x,) = inputs
    if x._dynamic_axes:
        raise RuntimeError("to_batch: the operand must have no dynamic axes, got %s" % (x.dynamic_axes,))
    if x._shape is not None and not x._shape:
        raise ValueError("to_batch: the operand must have at least one static axis (it becomes the batch axis)")
    shape = None if x._shape is None else tuple(x._shape[1:])
    return [OutputSpec(shape, x._dtype, (Axis.default_batch_axis(),), x._is_sparse)]


def _same_tensor(x):
    # batch-first run-time layout: the batch axis already is the leading dim of the tensor
    return x


register_op("UnpackBatch", _unpack_batch_infer, _same_tensor, public_name="UnpackBatchAxis")
register_op("ToBatch", _to_batch_infer, _same_tensor, public_name="ToBatchAxis")


def unpack_batch(x, name=''):
    """The batch axis of x becomes its leading static axis (of size FreeDimension); no dynamic axes remain."""
    (x,) = sanitize_operands(x, names=["x"])
    return make("UnpackBatch", [x], {}, name)


def to_batch(x, name=''):
    """The leading static axis of x (which has no dynamic axes) becomes the batch axis."""
    (x,) = sanitize_operands(x, names=["x"])
    return make("ToBatch", [x], {}, name)
