"""Reductions over static axes (and over the batch axis), argmax/argmin."""
import torch

from ..core.axis import Axis, BATCH_AXIS_NAME
from ..core.registry import OutputSpec, register_op
from ._common import make, normalize_axis, sanitize_operands


def _parse_axes(x, axis, op_name):
    """(static axis indices, reduce over batch, reduce over all dynamic axes) from CNTK's axis forms."""
    rank = len(x._shape) if x._shape is not None else 0
    if axis is None or (isinstance(axis, Axis) and axis == Axis.all_static_axes()):
        return tuple(range(rank)), False, False
    if isinstance(axis, Axis) and axis == Axis.all_axes():
        return tuple(range(rank)), True, True
    if isinstance(axis, Axis) and axis.is_dynamic_axis:
        if axis.name != BATCH_AXIS_NAME:
            raise ValueError("%s: reducing over the sequence axis needs cntk.sequence.reduce_* ops" % op_name)
        return (), True, False
    axes = axis if isinstance(axis, (list, tuple)) else [axis]
    static, batch = [], False
    for a in axes:
        if isinstance(a, Axis) and a.is_dynamic_axis:
            batch = True
            continue
        static.append(normalize_axis(a, rank, op_name))
    return tuple(sorted(set(static))), batch, False


def _reduce_infer(inputs, attributes):
    (x,) = inputs
    axes, keepdims = attributes["axes"], attributes["keepdims"]
    dyn = x._dynamic_axes
    if attributes["all_dynamic"]:
        dyn = ()
    elif attributes["batch"] and dyn is not None:
        dyn = tuple(a for a in dyn if a.name != BATCH_AXIS_NAME)
    if x._shape is None:
        return [OutputSpec(None, x._dtype, dyn)]
    if keepdims:
        shape = tuple(1 if k in axes else d for k, d in enumerate(x._shape))
    else:
        shape = tuple(d for k, d in enumerate(x._shape) if k not in axes)
    if attributes["all_dynamic"] and not keepdims:
        shape = ()
    return [OutputSpec(shape, x._dtype, dyn)]


def _apply(kind, t, dims, keepdim):
    if not dims:
        return t
    if kind == "sum":
        return t.sum(dim=dims, keepdim=keepdim)
    if kind == "mean":
        return t.mean(dim=dims, keepdim=keepdim)
    if kind == "max":
        return t.amax(dim=dims, keepdim=keepdim)
    if kind == "min":
        return t.amin(dim=dims, keepdim=keepdim)
    if kind == "log_sum_exp":
        return torch.logsumexp(t, dim=dims, keepdim=keepdim)
    if kind == "l1":
        return t.abs().sum(dim=dims, keepdim=keepdim)
    if kind == "l2":
        return t.square().sum(dim=dims, keepdim=keepdim).sqrt()
    if kind == "sum_square":
        return t.square().sum(dim=dims, keepdim=keepdim)
    if kind == "prod":
        for d in sorted(dims, reverse=True):
            t = t.prod(dim=d, keepdim=keepdim)
        return t
    raise ValueError(kind)


def _reduce(x, kind, static_dims, dyn_dims, keepdims, squeeze_dyn):
    y = _apply(kind, x, static_dims, keepdims)
    if dyn_dims:
        y = _apply(kind, y, dyn_dims, not squeeze_dyn)
    return y


def _reduce_prepare(node):
    x = node._inputs[0]
    a = node._attributes
    n_dyn = x._n_dynamic
    dyn_dims = ()
    if a["all_dynamic"]:
        dyn_dims = tuple(range(n_dyn))
    elif a["batch"]:
        dyn_dims = (0,)
    return {"kind": a["kind"], "static_dims": tuple(n_dyn + k for k in a["axes"]), "dyn_dims": dyn_dims,
            "keepdims": a["keepdims"], "squeeze_dyn": True}


_OP_NAMES = {"sum": "ReduceSum", "mean": "ReduceMean", "max": "ReduceMax", "min": "ReduceMin",
             "prod": "ReduceProd", "log_sum_exp": "ReduceLogSum", "l1": "ReduceL1", "l2": "ReduceL2",
             "sum_square": "ReduceSumSquare"}
for _kind, _name in _OP_NAMES.items():
    register_op(_name, _reduce_infer, _reduce, prepare=_reduce_prepare)


def _reduction(kind, x, axis, keepdims, name):
    (x,) = sanitize_operands(x, names=["x"])
    op_name = _OP_NAMES[kind]
    axes, batch, all_dyn = _parse_axes(x, axis, op_name)
    return make(op_name, [x], {"kind": kind, "axes": axes, "batch": batch, "all_dynamic": all_dyn,
                               "keepdims": bool(keepdims)}, name)


def reduce_sum(x, axis=None, keepdims=True, name=""):
    return _reduction("sum", x, axis, keepdims, name)


def reduce_mean(x, axis=None, keepdims=True, name=""):
    return _reduction("mean", x, axis, keepdims, name)


def reduce_max(x, axis=None, keepdims=True, name=""):
    return _reduction("max", x, axis, keepdims, name)


def reduce_min(x, axis=None, keepdims=True, name=""):
    return _reduction("min", x, axis, keepdims, name)


def reduce_prod(x, axis=None, keepdims=True, name=""):
    return _reduction("prod", x, axis, keepdims, name)


def reduce_log_sum_exp(x, axis=None, keepdims=True, name=""):
    return _reduction("log_sum_exp", x, axis, keepdims, name)


def reduce_l1(x, axis=None, keepdims=True, name=""):
    return _reduction("l1", x, axis, keepdims, name)


def reduce_l2(x, axis=None, keepdims=True, name=""):
    return _reduction("l2", x, axis, keepdims, name)


def reduce_sum_square(x, axis=None, keepdims=True, name=""):
    return _reduction("sum_square", x, axis, keepdims, name)


# -- argmax / argmin ---------------------------------------------------------------------------------

def _arg_infer(inputs, attributes):
    (x,) = inputs
    if x._shape is None:
        return [OutputSpec(None, x._dtype, x._dynamic_axes)]
    axis = attributes["axis"]
    if axis is None:
        shape = (1,)
    else:
        shape = tuple(1 if k == axis else d for k, d in enumerate(x._shape))
    return [OutputSpec(shape, x._dtype, x._dynamic_axes, needs_gradient=False)]


def _arg_extreme(x, n_dyn, axis, largest):
    if axis is None:
        flat = x.reshape(tuple(x.shape[:n_dyn]) + (-1,))
        idx = flat.argmax(dim=-1, keepdim=True) if largest else flat.argmin(dim=-1, keepdim=True)
    else:
        idx = x.argmax(dim=n_dyn + axis, keepdim=True) if largest else x.argmin(dim=n_dyn + axis, keepdim=True)
    return idx.to(x.dtype)


def _arg_prepare(largest):
    def prepare(node):
        return {"n_dyn": node._inputs[0]._n_dynamic, "axis": node._attributes["axis"], "largest": largest}
    return prepare


register_op("Argmax", _arg_infer, _arg_extreme, prepare=_arg_prepare(True))
register_op("Argmin", _arg_infer, _arg_extreme, prepare=_arg_prepare(False))


def _arg(op_name, x, axis, name):
    (x,) = sanitize_operands(x, names=["x"])
    rank = len(x._shape) if x._shape is not None else 0
    a = None if axis is None else normalize_axis(axis, rank, op_name)
    return make(op_name, [x], {"axis": a}, name)


def argmax(x, axis=None, name=""):
    return _arg("Argmax", x, axis, name)


def argmin(x, axis=None, name=""):
    return _arg("Argmin", x, axis, name)
