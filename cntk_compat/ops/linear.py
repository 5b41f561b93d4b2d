"""Matrix products: times, times_transpose (CNTK's tensor-product semantics)."""
import math

import torch

from ..core.dtypes import operands_dtype
from ..core.native_errors import announced
from ..core.one_hot import recorded_one_hot_columns, recorded_present_rows
from ..core.registry import OutputSpec, register_op
from ._common import make, operand_dynamic_axes, refuse_integer_arrays, sanitize_operands

TIMES_NO_INFERRED_INPUT_RANK = -1
TIMES_REDUCE_SEQUENCE_AXIS_WITHOUT_INFERRED_INPUT_RANK = -3


def _resolve_right(x, w, output_rank, infer_input_rank_to_map):
    """Fill the inferred dims of a leaf right operand (Parameter, Constant, Input) from the left operand's shape."""
    if w._shape is None or x._shape is None or all(d >= 0 for d in w._shape):
        return
    if not (w.is_parameter or w.is_constant or w.is_input):
        return
    out_dims = w._shape[len(w._shape) - output_rank:] if output_rank else ()
    red = w._shape[:len(w._shape) - output_rank]
    if infer_input_rank_to_map >= 0 and len(red) == 1 and red[0] == -1:
        red = x._shape[infer_input_rank_to_map:]
    else:
        if len(x._shape) < len(red):
            return  # the left operand cannot fill them (the shape rule reports the mismatch)
        tail = x._shape[len(x._shape) - len(red):] if red else ()
        red = tuple(t if r == -1 else r for r, t in zip(red, tail))
    w._resolve_inferred_shape(tuple(red) + tuple(out_dims))


def _times_infer(inputs, attributes):
    x, w = inputs
    output_rank, map_rank = attributes["output_rank"], attributes["infer_input_rank_to_map"]
    if x._shape is not None and map_rank >= len(x._shape) and map_rank >= 0:
        # CNTK 2.7 refuses it whatever the right operand (a Dense layer's map_rank over an input of that rank)
        raise announced(ValueError, "Times: Input map rank (%d) must be < rank (%d) of the left operand '%r'."
                        % (map_rank, len(x._shape), x))
    inferred = w._shape is not None and any(d < 0 for d in w._shape)
    _resolve_right(x, w, output_rank, attributes["infer_input_rank_to_map"])
    dtype = operands_dtype((w, x))
    axes = operand_dynamic_axes("Times", (w, x))
    if x._shape is None or w._shape is None:
        return [OutputSpec(None, dtype, axes)]
    k = len(w._shape) - output_rank
    if k < 0:
        raise ValueError("times: output_rank %d exceeds the rank of the right operand %s" % (output_rank, w._shape))
    if x._is_sparse and k > 1 and not inferred and attributes["infer_input_rank_to_map"] < 0:
        # CNTK's sparse product reduces one axis only: a RuntimeError when the graph is built, as in CNTK 2.7,
        # unless the right operand's reduced axes are inferred from the left (a Dense layer over a sparse matrix)
        raise RuntimeError("Times: For a sparse left operand '%s', cannot reduce multiple (%d) axes; currently only "
                           "the trailing axis can be reduced for the sparse operand." % (x, k))
    lead, red = x._shape[:len(x._shape) - k], x._shape[len(x._shape) - k:]
    if k > len(x._shape):
        raise announced(RuntimeError, "Times: The left operand '%r' rank (%d) must be >= #axes (%d) being reduced "
                        "over." % (x, len(x._shape), k))
    if any(a >= 0 and b >= 0 and a != b for a, b in zip(red, w._shape[:k])):
        raise ValueError("Times: The %d leading dimensions of the right operand with shape '[%s]' do not match the "
                         "left operand's trailing dimensions with shape '[%s]'"
                         % (k, " x ".join(str(d) for d in w._shape[:k]), " x ".join(str(d) for d in x._shape)))
    return [OutputSpec(tuple(lead) + tuple(w._shape[k:]), dtype, axes)]


_SAME_SIZE_INTEGER = {torch.float32: torch.int32, torch.float64: torch.int64, torch.float16: torch.int16,
                      torch.bfloat16: torch.int16}


def _sparse_rows_times(x, w):
    """x·w for a sparse input held densely (one-hot words): the rows of w its nonzeros pick, weighted and summed,
    instead of a dense product over the whole vocabulary (in both directions of autograd). Where the input's
    producer recorded the column of each row's 1 (core/one_hot.py) the rows are picked without searching."""
    out_shape = tuple(x.shape[:-1]) + (w.shape[1],)
    recorded = recorded_one_hot_columns(x)
    if recorded is not None:
        cols, every_row = recorded
        if every_row:
            return w.index_select(0, cols).reshape(out_shape)
        rows, present = recorded_present_rows(x)
        return _one_per_row(w, rows, present, cols.numel()).reshape(out_shape)
    flat = x.reshape(-1, x.shape[-1])
    n = flat.shape[0]
    # the search reads the values' bits as integers, a third faster than comparing floats; a -0.0 is then found
    # too and adds its (signed) zero products, as the dense product would
    bits = _SAME_SIZE_INTEGER.get(flat.dtype)
    rows, cols = (flat if bits is None else flat.view(bits)).nonzero(as_tuple=True)
    values = flat[rows, cols]
    if bool(values.eq(1).all()) and (rows.numel() < 2 or bool((rows[1:] > rows[:-1]).all())):
        # at most one nonzero per row (nonzero lists them in row order), and all of them ones: one-hot rows,
        # whose product is the picked rows of w themselves
        return _one_per_row(w, rows, cols, n).reshape(out_shape)
    picked = w.index_select(0, cols) * values.unsqueeze(1).to(w.dtype)
    return w.new_zeros((n, w.shape[1])).index_add_(0, rows, picked).reshape(out_shape)


def _one_per_row(w, rows, cols, n):
    """The (n, w's columns) product of n rows that are zero except for a 1 in column cols[k] of row rows[k]."""
    picked = w.index_select(0, cols)
    if rows.numel() == n:  # every row (rows are distinct and in order)
        return picked
    return w.new_zeros((n, w.shape[1])).index_copy_(0, rows, picked)


def _times(x, w, k, x_dyn, w_dyn, sparse_left=False):
    if k == 1 and not w_dyn and w.dim() == 2:  # the common case: a matrix times the last axis
        if sparse_left and not x.requires_grad:
            return _sparse_rows_times(x, w)
        return torch.matmul(x, w)
    # sizes from the run-time tensor: free dimensions (FreeDimension) are only known here
    w_static = tuple(w.shape[w_dyn:])
    reduce_size, out_shape = math.prod(w_static[:k]), w_static[k:]
    if w_dyn and not x_dyn:
        # a static left operand times a right operand per sample
        lead = tuple(x.shape[:x.dim() - k])
        y = torch.matmul(x.reshape(-1, reduce_size), w.reshape(tuple(w.shape[:w_dyn]) + (reduce_size, -1)))
        return y.reshape(tuple(w.shape[:w_dyn]) + lead + tuple(out_shape))
    if w_dyn:
        # both operands carry dynamic axes: batched product over matching leading axes
        xs = x.shape
        x2 = x.reshape(tuple(xs[:len(xs) - k]) + (reduce_size,)) if k else x.unsqueeze(-1)
        w2 = w.reshape(tuple(w.shape[:w_dyn]) + (reduce_size, -1))
        lead = x2.shape[:-1]
        x3 = x2.reshape(tuple(w.shape[:w_dyn]) + (-1, reduce_size))
        y = torch.matmul(x3, w2)
        return y.reshape(tuple(lead) + tuple(out_shape))
    xs = x.shape
    x2 = x.reshape(tuple(xs[:len(xs) - k]) + (reduce_size,)) if k else x.unsqueeze(-1)
    w2 = w.reshape(reduce_size, -1)
    y = torch.matmul(x2, w2)
    return y.reshape(tuple(xs[:len(xs) - k]) + tuple(out_shape))


def _times_prepare(node):
    x, w = node._inputs
    k = len(w._shape) - node._attributes["output_rank"]
    return {"k": k, "x_dyn": x._n_dynamic, "w_dyn": w._n_dynamic, "sparse_left": bool(x._is_sparse)}


register_op("Times", _times_infer, _times, prepare=_times_prepare, reconciles=True, algebra="matmul",
            native_operand_order=(1, 0),
            # a sparse left operand selects rows of the right one: their gradient is sparse (CNTK's)
            sparse_gradient=lambda node, k, output_sparse: k == 1 and bool(node._inputs[0]._is_sparse),
            public_attributes=lambda attrs, node: {"outputRank": int(attrs["output_rank"]),
                                                   "inferInputRankToMap": int(attrs["infer_input_rank_to_map"])})


def times(left, right, output_rank=1, infer_input_rank_to_map=TIMES_NO_INFERRED_INPUT_RANK, name=""):
    """Tensor product of left and right: the trailing axes of left are reduced against the leading axes of
    right; the last ``output_rank`` axes of right remain."""
    refuse_integer_arrays(left, right)
    left, right = sanitize_operands(left, right, names=["left", "right"])
    if int(infer_input_rank_to_map) == TIMES_REDUCE_SEQUENCE_AXIS_WITHOUT_INFERRED_INPUT_RANK and \
            (left._sequence_axis is not None or right._sequence_axis is not None):
        # CNTK 2.7: the product summed over the sequence axis too, i.e. sequence.reduce_sum of the product
        from .sequence import reduce_sum
        product = make("Times", [left, right], {"output_rank": int(output_rank),
                                                "infer_input_rank_to_map": TIMES_NO_INFERRED_INPUT_RANK})
        return reduce_sum(product, name=name)
    return make("Times", [left, right], {"output_rank": int(output_rank),
                                         "infer_input_rank_to_map": int(infer_input_rank_to_map)}, name)


def _times_transpose_infer(inputs, attributes):
    x, w = inputs
    dtype = operands_dtype((w, x))
    axes = operand_dynamic_axes("TransposeTimes", (w, x))
    if x._shape is None or w._shape is None:
        return [OutputSpec(None, dtype, axes)]
    for a, b in ((x, w), (w, x)):   # an inferred (-1) last dimension of a Parameter or Constant is the other's
        if (a.is_parameter or a.is_constant) and a._shape[-1:] == (-1,) and b._shape[-1:] and b._shape[-1] >= 0:
            a._resolve_inferred_shape(tuple(a._shape[:-1]) + (b._shape[-1],))
    if len(w._shape) > 2:
        raise ValueError("times_transpose: the right operand must have rank 1 or 2, got shape %s" % (w._shape,))
    if x._shape[-1:] != w._shape[-1:]:
        raise ValueError("times_transpose: the last axes of %s and %s must match" % (x._shape, w._shape))
    # a vector right operand is a one-row matrix (CNTK: np.dot(left, np.reshape(right, (1, -1)).T)), so its
    # product keeps a last axis of 1 whatever the rank of left: (50, 10) x (10,) -> (50, 1)
    out = tuple(x._shape[:-1]) + (tuple(w._shape[:-1]) if len(w._shape) == 2 else (1,))
    return [OutputSpec(out, dtype, axes)]


def _times_transpose(x, w, w_rank, x_dyn, w_dyn, x_rank):
    if w_rank == 1:
        if w_dyn:  # a vector per sample: align it with the rows of x
            w = w.reshape(tuple(w.shape[:w_dyn]) + (1,) * (x_rank - 1) + tuple(w.shape[w_dyn:]))
        return (x * w).sum(-1, keepdim=True)
    if w_dyn:  # one right matrix per sample: rows of x (per sample, or shared when x is static) times it
        rows = x.reshape(tuple(x.shape[:x_dyn]) + (-1, x.shape[-1]))
        wt = w.transpose(-1, -2)
        if x_dyn and x_dyn != w_dyn:    # the operand without the sequence axis is broadcast along it
            rows, wt = (rows.unsqueeze(x_dyn), wt) if x_dyn < w_dyn else (rows, wt.unsqueeze(w_dyn))
        y = torch.matmul(rows, wt)
        return y.reshape(tuple(y.shape[:max(x_dyn, w_dyn)]) + tuple(x.shape[x_dyn:-1]) + (w.shape[-2],))
    return torch.matmul(x, w.t())


def _times_transpose_prepare(node):
    x, w = node._inputs
    return {"w_rank": len(w._shape), "x_dyn": x._n_dynamic, "w_dyn": w._n_dynamic, "x_rank": len(x._shape)}


register_op("TransposeTimes", _times_transpose_infer, _times_transpose, prepare=_times_transpose_prepare,
            reconciles=True, native_operand_order=(1, 0), public_attributes=lambda attrs, node: {"outputRank": 1})


def times_transpose(left, right, name=""):
    refuse_integer_arrays(left, right)
    left, right = sanitize_operands(left, right, names=["left", "right"])
    return make("TransposeTimes", [left, right], None, name)
