"""combine, cast, one_hot, gather, top_k, assign, *_like, normalization helpers."""
import numpy as np
import torch

from ..core.deferred_writes import write_after_pass
from ..core.axis import Axis
from ..core.dtypes import check_operand_dtypes, data_type_code, operands_dtype, sanitize_dtype, to_torch_dtype
from ..core.function import Function, as_block, as_variable
from ..core.native_errors import RuntimeValueError
from ..core.registry import OutputSpec, register_op
from ..core.variables import FreeDimension
from ._common import data_type_of, make, native_axis, normalize_axis, sanitize_operand, sanitize_operands
from ._partial_sort import top_k_indices


def combine(*operands, **kw_name):
    """One Function whose outputs are the outputs of all operands."""
    name = kw_name.pop("name", "")
    if kw_name:
        raise TypeError("combine: unexpected keyword arguments %s" % sorted(kw_name))
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    outs = []
    for k, op in enumerate(operands):
        if isinstance(op, Function):
            outs.extend(op.outputs)
        else:
            outs.append(as_variable(op, "operand %d of combine" % k))
    return Function._combine_vars(outs, name=name)


def as_composite(root_function, name=""):
    """A composite Function over ``root_function``'s outputs; ``name`` names the composite (the root keeps
    its own name; without one the composite's name is empty, as in CNTK). A composite given is returned itself,
    its name unchanged, as CNTK 2.7 returns it."""
    if root_function.is_composite:
        return root_function
    return Function._composite(root_function.outputs, name=name or "")


# -- cast -------------------------------------------------------------------------------------------

def _cast_infer(inputs, attributes):
    x = inputs[0]
    return [OutputSpec(x._shape, np.dtype(attributes["dtype"]), x._dynamic_axes)]


def _cast(x, dtype):
    return x.to(dtype)


register_op("Cast", _cast_infer, _cast, prepare=lambda node: {"dtype": to_torch_dtype(node._attributes["dtype"])},
            public_attributes=lambda attrs, node: {"newDataType": data_type_code(attrs["dtype"])})


def cast(node_input, dtype, name=""):
    (x,) = sanitize_operands(node_input, names=["node_input"])
    return make("Cast", [x], {"dtype": str(sanitize_dtype(dtype))}, name)


# -- one_hot ----------------------------------------------------------------------------------------

def _one_hot_infer(inputs, attributes):
    x = inputs[0]
    n, axis = attributes["num_classes"], attributes["axis"]
    if x._shape is None:
        return [OutputSpec(None, x._dtype, x._dynamic_axes)]
    shape = list(x._shape)
    a = axis + len(shape) + 1 if axis < 0 else axis
    shape.insert(a, n)
    return [OutputSpec(tuple(shape), x._dtype, x._dynamic_axes, attributes["sparse_output"], False)]


def _one_hot(x, num_classes, dim):
    idx = x.long()
    valid = (idx >= 0) & (idx < num_classes)  # CNTK 2.7: an index outside [0, num_classes) gives a row of zeros
    out = torch.nn.functional.one_hot(torch.where(valid, idx, torch.zeros_like(idx)), num_classes)
    out = (out * valid.unsqueeze(-1)).to(x.dtype)
    return out.movedim(-1, dim) if dim != -1 else out


def _one_hot_prepare(node):
    x = node._inputs[0]
    a = node._attributes["axis"]
    rank_out = len(node._outputs[0]._shape)
    dim = (x._n_dynamic + (a if a >= 0 else rank_out + a))
    return {"num_classes": node._attributes["num_classes"], "dim": dim if a != -1 else -1}


def _one_hot_public(attrs, node):
    # the axis counts in the output, which has one more axis than the input
    return {"numClass": int(attrs["num_classes"]), "oneHotOutputSparse": bool(attrs["sparse_output"]),
            "onehotAxis": native_axis(attrs["axis"], len(node.inputs[0].shape) + 1)}


register_op("OneHot", _one_hot_infer, _one_hot, prepare=_one_hot_prepare, public_attributes=_one_hot_public,
            public_name="OneHotOp")


def one_hot(x, num_classes, sparse_output=False, axis=-1, name=""):
    (x,) = sanitize_operands(x, names=["x"])
    if hasattr(axis, "static_axis_index"):
        axis = axis.static_axis_index()
    return make("OneHot", [x], {"num_classes": int(num_classes), "sparse_output": bool(sparse_output),
                                "axis": int(axis)}, name)


# -- gather -----------------------------------------------------------------------------------------

def gather_axes(ref_rank, idx_rank, axis, from_end):
    """(a, b) of CNTK's gather along an axis: the reference's axis a is swapped with its first axis, the gather
    selects along the first axis (the result is indices' shape + the rest), and the result's first axis is swapped
    with its axis b. CNTK's C++ GatherOp is this block (TransposeAxes, Gather, TransposeAxes) with both swaps at the
    axis the user gave, counted from the end in CNTK's axis order; so b depends on whether the user's axis was
    negative (from_end), and the result differs from numpy's take when the indices have more than one axis."""
    a = axis + ref_rank if axis < 0 else axis
    n = ref_rank - 1 + idx_rank
    return a, (n - (ref_rank - a) if from_end else a)


def _swapped(shape, i, j):
    shape = list(shape)
    shape[i], shape[j] = shape[j], shape[i]
    return shape


def _gather_infer(inputs, attributes):
    ref, idx = inputs
    axes = idx._dynamic_axes if idx._dynamic_axes else ref._dynamic_axes
    dtype = operands_dtype((idx, ref))
    if ref._shape is None or idx._shape is None:
        return [OutputSpec(None, dtype, axes)]
    a = attributes["axis"]
    if a is None:
        shape = tuple(idx._shape) + tuple(ref._shape[1:])
    else:
        a, b = gather_axes(len(ref._shape), len(idx._shape), a, attributes.get("from_end", False))
        shape = tuple(_swapped(tuple(idx._shape) + tuple(_swapped(ref._shape, 0, a)[1:]), 0, b))
    return [OutputSpec(shape, dtype, axes)]


def _gather(ref, idx, axis, result_axis, ref_dyn, idx_dyn):
    index = idx.long()
    size = ref.shape[ref_dyn + (axis or 0)]
    valid = (index >= 0) & (index < size)  # CNTK 2.7: an index outside the axis gathers zeros
    index = torch.where(valid, index, torch.zeros_like(index))
    if ref_dyn == 0:
        out = ref.transpose(0, axis)[index] if axis else ref[index]
    else:  # reference has dynamic axes: gather per batch element along its first static axis
        flat = index.reshape(index.shape[0], -1)
        out = torch.stack([ref[b].index_select(0, flat[b]) for b in range(ref.shape[0])])
        out = out.reshape(tuple(index.shape) + tuple(ref.shape[ref_dyn + 1:]))
    out = torch.where(valid.reshape(tuple(valid.shape) + (1,) * (out.dim() - valid.dim())), out,
                      torch.zeros((), dtype=out.dtype, device=out.device))
    return out.transpose(idx_dyn, idx_dyn + result_axis) if result_axis else out


def _gather_prepare(node):
    ref, idx = node._inputs
    a = b = node._attributes["axis"]
    if a is not None:
        a, b = gather_axes(len(ref._shape), len(idx._shape), a, node._attributes.get("from_end", False))
    return {"axis": a, "result_axis": b, "ref_dyn": ref._n_dynamic, "idx_dyn": idx._n_dynamic}


def _gather_public(attrs, node):
    """CNTK keeps the axis of its GatherOp as Python's sanitize_axis gives it (-1 - axis); plain Gather has none."""
    axis = attrs["axis"]
    if axis is None:
        return {}
    return {"axis": Axis(-1 - int(axis) if not attrs.get("from_end") else len(node._inputs[0]._shape) - 1 - axis)}


register_op("Gather", _gather_infer, _gather, prepare=_gather_prepare, native_operand_order=(1, 0),
            public_attributes=_gather_public)


def gather(reference, indices, axis=None, name=""):
    """CNTK's gather: without an axis, the indices select along the reference's first axis (result: indices' shape
    + the reference's other axes); with an axis, CNTK's GatherOp (see gather_axes: numpy's take when the indices
    are a vector)."""
    # CNTK 2.7 types both operands by the reference alone (numpy data keep their float type)
    dtype = data_type_of(reference)
    reference = sanitize_operand(reference, dtype, "reference")
    indices = sanitize_operand(indices, dtype, "indices")
    if axis is None:
        return make("Gather", [reference, indices], {"axis": None}, name)
    from_end = isinstance(axis, (int, np.integer)) and int(axis) < 0
    a = normalize_axis(axis, len(reference._shape) if reference._shape is not None else None, "gather")
    if a == 0 and not from_end:
        # CNTK's GatherOp given axis 0 is its plain Gather keeping the axis (and typing its operands as gather
        # without an axis does)
        return make("Gather", [reference, indices], {"axis": 0, "from_end": False}, name)
    # CNTK's GatherOp reads the reference through TransposeAxes: a Constant is not converted to the indices' type
    check_operand_dtypes("Gather", [indices, reference], constants_convert=False)
    # (reported under the name of CNTK's block, GatherOp)
    node = Function._primitive("Gather", [reference, indices], {"axis": a, "from_end": from_end}, name, "GatherOp")
    return Function._composite(node.outputs)


# -- top_k ------------------------------------------------------------------------------------------

def _top_k_infer(inputs, attributes):
    x = inputs[0]
    shape = None
    if x._shape is not None:
        axis = normalize_axis(attributes["axis"], len(x._shape), "top_k")
        if attributes["k"] > x._shape[axis] >= 0:
            raise RuntimeError("TopK: number of requested elements k (=%d) exceeds the size %d of axis %d"
                               % (attributes["k"], x._shape[axis], axis))
        shape = tuple(x._shape[:axis]) + (attributes["k"],) + tuple(x._shape[axis + 1:])
    return [OutputSpec(shape, x._dtype, x._dynamic_axes),
            OutputSpec(shape, x._dtype, x._dynamic_axes, needs_gradient=False, name_suffix="_TopKIndexMask")]


def _top_k(x, k, dim):
    values, indices = torch.topk(x, k, dim=dim)
    if not torch.compiler.is_compiling():
        ties = _rows_with_ties(x, values, dim)
        if ties is not None:
            indices = _cntk_tie_order(x, k, dim, indices, ties)
            values = x.gather(dim, indices)
    return values, indices.to(x.dtype)


def _rows_with_ties(x, values, dim):
    """The (flattened) rows whose top k includes equal values or whose k-th value recurs outside it (None when
    no row has either): only there does the order of CNTK's kernel differ from torch.topk's."""
    k = values.shape[dim]
    inside = (values.narrow(dim, 1, k - 1) == values.narrow(dim, 0, k - 1)).any(dim)
    boundary = (x == values.narrow(dim, k - 1, 1)).sum(dim) > 1
    rows = (inside | boundary).reshape(-1)
    return rows.nonzero().reshape(-1).tolist() if bool(rows.any()) else None


def _cntk_tie_order(x, k, dim, indices, rows):
    """``indices`` with the given rows redone as CNTK 2.7's CPU kernel orders them (ops._partial_sort)."""
    data = x.detach().movedim(dim, -1).reshape(-1, x.shape[dim]).cpu().tolist()
    redone = indices.movedim(dim, -1).reshape(-1, k).clone()
    for r in rows:
        redone[r] = torch.tensor(top_k_indices(data[r], k), dtype=redone.dtype, device=redone.device)
    moved_shape = indices.movedim(dim, -1).shape
    return redone.reshape(moved_shape).movedim(-1, dim)


def _top_k_prepare(node):
    x = node._inputs[0]
    return {"k": node._attributes["k"], "dim": x._n_dynamic + normalize_axis(node._attributes["axis"], len(x._shape),
                                                                                "top_k")}


register_op("TopK", _top_k_infer, _top_k, prepare=_top_k_prepare,
            public_attributes=lambda attrs, node: {"axis": native_axis(attrs["axis"], len(node.inputs[0].shape)),
                                                   "numItems": int(attrs["k"])})


def top_k(x, k, axis=-1, name=""):
    """The k largest values along axis (outputs[0]) and their indices (outputs[1]), largest first."""
    (x,) = sanitize_operands(x, names=["x"])
    if int(k) < 1:   # CNTK 2.7 builds it and refuses its empty outputs when computed (a RuntimeError)
        raise RuntimeValueError("top_k: k must be positive, got %r" % (k,))
    if hasattr(axis, "static_axis_index"):
        axis = axis.static_axis_index()
    return make("TopK", [x], {"k": int(k), "axis": int(axis)}, name)


# -- assign -----------------------------------------------------------------------------------------

def _assign_infer(inputs, attributes):
    ref, value = inputs
    if ref._shape is not None and value._shape is not None and (
            len(ref._shape) != len(value._shape) or
            any(r != v and v != FreeDimension for r, v in zip(ref._shape, value._shape))):
        raise ValueError("assign: the value's shape %s differs from the reference's %s" % (value._shape, ref._shape))
    return [OutputSpec(ref._shape, ref._dtype, ref._dynamic_axes, needs_gradient=False)]


class _DeferredAssign(torch.autograd.Function):
    """In a forward pass kept for backward, CNTK writes the reference only when the backward pass runs;
    the gradient of an assignment is zero for both operands."""

    @staticmethod
    def forward(ctx, ref, value):
        ctx.ref, ctx.value_shape = ref, value.shape
        ctx.value = value.detach().reshape(ref.shape).clone()
        return ctx.value.clone()

    @staticmethod
    def backward(ctx, grad):
        with torch.no_grad():
            ctx.ref.copy_(ctx.value)
        return torch.zeros_like(ctx.ref), grad.new_zeros(ctx.value_shape)


def _assign(ref, value):
    if torch.is_grad_enabled() and (ref.requires_grad or value.requires_grad):
        return _DeferredAssign.apply(ref, value)
    new = value.detach().reshape(ref.shape).to(ref.dtype).clone()
    if not write_after_pass(ref, new):
        with torch.no_grad():
            ref.copy_(new)
    return new.clone()


register_op("Assign", _assign_infer, _assign)


def assign(ref, input, name=""):
    """Writes input into ref (a Parameter or Constant) when evaluated; outputs the new value."""
    ref_v = as_variable(ref, "ref")
    if not (ref_v.is_parameter or ref_v.is_constant):
        raise TypeError("assign: ref must be a Parameter or Constant, got %r" % (ref_v,))
    ref_v, value = sanitize_operands(ref_v, input, names=["ref", "input"])
    if value._dynamic_axes:   # CNTK 2.7: one value for the whole of ref, never per sample
        raise ValueError("assign: input %r has dynamic axes %s; none of the operands of an assignment can have "
                         "dynamic axes" % (value, [a.name for a in value._dynamic_axes]))
    return make("Assign", [ref_v, value], None, name)


# -- ones_like / zeros_like / eye_like ---------------------------------------------------------------

def _like_infer(inputs, attributes):
    x = inputs[0]
    return [OutputSpec(x._shape, x._dtype, x._dynamic_axes, needs_gradient=False)]


def _fill_like(x, value):
    return torch.full_like(x, value)


register_op("ConstantLike", _like_infer, _fill_like, prepare=lambda node: {"value": node._attributes["value"]},
            public_name="ConstantOp")


def ones_like(x, name=""):
    (x,) = sanitize_operands(x, names=["x"])
    return make("ConstantLike", [x], {"value": 1.0}, name)


def zeros_like(x, name=""):
    (x,) = sanitize_operands(x, names=["x"])
    return make("ConstantLike", [x], {"value": 0.0}, name)


def _eye_like(x):
    n, m = x.shape[-2], x.shape[-1]
    return torch.eye(n, m, dtype=x.dtype, device=x.device).expand(x.shape).clone()


def _eye_like_infer(inputs, attributes):
    x = inputs[0]
    if x._shape is not None and x._n_dynamic + len(x._shape) != 2:
        raise ValueError("eye_like: x must be a matrix (2 axes, dynamic axes included), got shape %s with %d "
                         "dynamic axes" % (x.shape, x._n_dynamic))
    return [OutputSpec(x._shape, x._dtype, x._dynamic_axes, is_sparse=attributes["sparse_output"],
                       needs_gradient=False)]


register_op("EyeLikeOp", _eye_like_infer, _eye_like)


def eye_like(x, sparse_output=True, name=""):
    (x,) = sanitize_operands(x, names=["x"])
    return make("EyeLikeOp", [x], {"sparse_output": bool(sparse_output)}, name)


def per_dim_mean_variance_normalize(operand, mean, inv_stddev, name=""):
    from .elementwise import element_times, minus
    operand, mean, inv_stddev = sanitize_operands(operand, mean, inv_stddev,
                                                  names=["operand", "mean", "inv_stddev"])
    return element_times(minus(operand, mean), inv_stddev, name=name)


def _mvn(x, n_dyn, across_channels, scaling, epsilon):
    dims = tuple(range(n_dyn, x.dim())) if across_channels else tuple(range(n_dyn + 1, x.dim()))
    if not dims:   # a vector is one channel (CNTK 2.7): its statistics are over the whole sample
        dims = tuple(range(n_dyn, x.dim()))
    centered = x - x.mean(dim=dims, keepdim=True)
    if not scaling:
        return centered
    std = centered.square().mean(dim=dims, keepdim=True).sqrt()
    return centered / (std + epsilon)  # CNTK adds epsilon to the standard deviation


register_op("MeanVarianceNormalization", _like_infer, _mvn,
            prepare=lambda node: {"n_dyn": node._inputs[0]._n_dynamic,
                                  "across_channels": node._attributes["use_stats_across_channels"],
                                  "scaling": node._attributes["do_variance_scaling"],
                                  "epsilon": node._attributes["epsilon"]})


def mean_variance_normalization(operand, epsilon=0.00001, use_stats_across_channels=False,
                                do_variance_scaling=True, name=""):
    (x,) = sanitize_operands(operand, names=["operand"])
    if x._shape is not None and not x._shape:
        raise ValueError("mean_variance_normalization: the rank of the operand %r must be >= 1" % (x,))
    return make("MeanVarianceNormalization", [x], {"epsilon": float(epsilon),
                                                   "use_stats_across_channels": bool(use_stats_across_channels),
                                                   "do_variance_scaling": bool(do_variance_scaling)}, name)


__all__ = ["combine", "as_composite", "as_block", "cast", "one_hot", "gather", "top_k", "assign", "ones_like",
           "zeros_like", "eye_like", "per_dim_mean_variance_normalize", "mean_variance_normalization"]
