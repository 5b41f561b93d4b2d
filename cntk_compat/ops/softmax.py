"""softmax, log_softmax, hardmax: normalizing along one static axis (or all of them)."""
import torch

from ..core.axis import Axis
from ..core.criterion_fusion import register_computation
from ..core.registry import OutputSpec, register_op
from ._common import make, normalize_axis, refuse_axis_of_rank0, sanitize_operands


def _same_infer(inputs, attributes):
    x = inputs[0]
    return [OutputSpec(x._shape, x._dtype, x._dynamic_axes)]


def _flat_apply(fn, x, n_dyn, axis):
    if axis is not None:
        return fn(x, n_dyn + axis)
    shape = x.shape
    flat = x.reshape(tuple(shape[:n_dyn]) + (-1,))
    return fn(flat, -1).reshape(shape)


def _softmax(x, n_dyn, axis):
    return _flat_apply(torch.softmax, x, n_dyn, axis)


def _log_softmax(x, n_dyn, axis):
    return _flat_apply(torch.log_softmax, x, n_dyn, axis)


def _hardmax_along(t, dim):
    idx = t.argmax(dim=dim, keepdim=True)
    return torch.zeros_like(t).scatter_(dim, idx, 1.0)


def _hardmax(x, n_dyn, axis):
    return _flat_apply(_hardmax_along, x, n_dyn, axis)


register_computation("hardmax", _hardmax)


def _axis_prepare(node):
    x, axis = node._inputs[0], node._attributes["axis"]
    if axis is not None:
        axis = normalize_axis(axis, len(x._shape), node._op_name)
    elif not x._n_dynamic and x._shape:
        # CNTK normalizes each sample: an operand without dynamic axes (a Constant, a Parameter) is a matrix
        # whose columns run along its last axis
        axis = len(x._shape) - 1
    return {"n_dyn": x._n_dynamic, "axis": axis}


def _public_axis(attrs, node):
    """CNTK reports the axis of softmax and hardmax only where one was given, as it keeps it: -1 - the given axis
    (the last axis given as -1 is reported as 0)."""
    axis = attrs["axis"]
    return {} if axis is None else {"axis": Axis(-1 - int(axis))}


register_op("Softmax", _same_infer, _softmax, prepare=_axis_prepare, public_attributes=_public_axis)
register_op("LogSoftmax", _same_infer, _log_softmax, prepare=_axis_prepare, public_attributes=_public_axis)
register_op("Hardmax", _same_infer, _hardmax, prepare=_axis_prepare, public_attributes=_public_axis)


def _with_axis(op_name, x, axis, name):
    (x,) = sanitize_operands(x, names=["x"])
    if isinstance(axis, Axis) and axis._index is None:
        if op_name == "Softmax" and axis == Axis.all_static_axes():  # CNTK 2.7: the whole sample, as axis=None
            axis = None
        else:  # CNTK 2.7 normalizes along a static axis only
            raise RuntimeError("%s: axis %s is not a static axis of '%s'" % (op_name, axis, x.name or x.uid))
    refuse_axis_of_rank0(axis, x, op_name)
    if axis is not None:   # kept as given (validated here, made non-negative when lowered): CNTK reports it so
        normalize_axis(axis, len(x._shape) if x._shape is not None else None, op_name)
        axis = int(axis.static_axis_index() if isinstance(axis, Axis) else axis)
    return make(op_name, [x], {"axis": axis}, name)


def softmax(x, axis=None, name=""):
    return _with_axis("Softmax", x, axis, name)


def log_softmax(x, axis=None, name=""):
    """x - log(sum(exp(x))) along ``axis``, by default the last axis (CNTK 2.7; softmax's default is the whole
    sample)."""
    if isinstance(axis, Axis) and axis == Axis.default_batch_axis():
        # CNTK 2.7's block, x - ReduceLogSum(x) along the batch axis, is built for it too
        from .elementwise import minus
        from .reductions import reduce_log_sum_exp
        return minus(x, reduce_log_sum_exp(x, axis=axis), name=name)
    return _with_axis("LogSoftmax", x, -1 if axis is None else axis, name)


def hardmax(x, name=""):
    return _with_axis("Hardmax", x, None, name)
