"""Ops that change shapes: reshape, slice, splice, transpose, swapaxes, squeeze, expand_dims, flatten, pad."""
import math

import torch

_pyslice = slice

from ..core.axis import Axis
from ..core.native_errors import RuntimeValueError, announced
from ..default_options import default_override_or, get_default_override, get_global_option
from ..core.registry import OutputSpec, register_op
from ..core.variables import FreeDimension, shape_text
from ._common import make, native_axis, normalize_axis, operand_dynamic_axes, sanitize_operands
from ..core.dtypes import operands_dtype


def _n_dyn_kwargs(node):
    return {"n_dyn": node._inputs[0]._n_dynamic}


# -- reshape ----------------------------------------------------------------------------------------

def _reshape_infer(inputs, attributes):
    (x,) = inputs
    if x._shape is None:
        return [OutputSpec(None, x._dtype, x._dynamic_axes)]
    rank = len(x._shape)
    b, e = _reshape_range(attributes, rank)
    part = x._shape[b:e]
    new = list(attributes["shape"])
    size = math.prod(part) if all(d >= 0 for d in part) else None
    if new.count(-1) > 1 or any(d < -1 and d != FreeDimension for d in new):
        raise ValueError("reshape: at most one inferred dimension (-1) is allowed, got %s" % (tuple(new),))
    if FreeDimension in new and size is not None:   # (of a free input, it is sized at run time)
        raise RuntimeError("reshape: the new shape %s has a free dimension (-3), but the input's shape %s is known"
                           % (tuple(new), x._shape))
    if -1 in new and size is None and all(d >= 0 or d == FreeDimension for d in part):
        new[new.index(-1)] = FreeDimension  # sized at run time from the free input dimensions
    elif -1 in new and size is not None:
        known = math.prod(d for d in new if d != -1)
        if known == 0 or size % known:
            raise ValueError("reshape: cannot reshape %s into %s" % (x._shape, tuple(attributes["shape"])))
        new[new.index(-1)] = size // known
    elif size is not None and math.prod(new) != size:
        raise announced(ValueError, "Reshape: Operand (sub-)dimensions '%s' incompatible with desired replacement "
                        "(sub-)dimensions '%s'. Number of elements must be the same..\n\n(cntk-compat: reshape of "
                        "%r, axes %d to %d)" % (shape_text(part), shape_text(tuple(new)), x, b, e))
    return [OutputSpec(tuple(x._shape[:b]) + tuple(new) + tuple(x._shape[e:]), x._dtype, x._dynamic_axes,
                       x._is_sparse)]


def _reshape(x, n_dyn, begin, end, new_shape):
    shape = tuple(x.shape)
    target = shape[:n_dyn + begin] + new_shape + shape[len(shape) - end:]
    try:
        return x.reshape(target)
    except RuntimeError:  # only free (run-time sized) input dimensions can make this fail
        raise ValueError("reshape: an input of shape %s cannot be reshaped to %s"
                         % (shape[n_dyn:], target[n_dyn:])) from None


def _reshape_prepare(node):
    x, out = node._inputs[0], node._outputs[0]
    a = node._attributes
    rank = len(x._shape)
    begin, end = _reshape_range(a, rank)
    kept_after = rank - end
    new_shape = out._shape[begin:len(out._shape) - kept_after]
    if new_shape.count(FreeDimension) > 1:
        raise ValueError("reshape: more than one dimension of the new shape %s is free (-3, or -1 of a free input), "
                         "so the data cannot size them" % (tuple(a["shape"]),))
    return {"n_dyn": x._n_dynamic, "begin": begin, "end": kept_after,
            "new_shape": tuple(-1 if d == FreeDimension else d for d in new_shape)}


def _reshape_public(attrs, node):
    rank = len(node.inputs[0].shape)
    begin = 0 if attrs["begin_axis"] is None else int(attrs["begin_axis"]) % (rank + 1)
    end = rank if attrs["end_axis"] is None else int(attrs["end_axis"]) % (rank + 1)
    return {"newShape": tuple(attrs["shape"]), "beginAxis": Axis(rank - end), "endAxis": Axis(rank - begin)}


register_op("Reshape", _reshape_infer, _reshape, prepare=_reshape_prepare, public_attributes=_reshape_public,
            sparse_gradient=lambda node, k, output_sparse: output_sparse())


def _static_index(axis, rank, op_name, allow_end=False):
    if isinstance(axis, Axis):
        if axis == Axis.end_static_axis() or (allow_end and axis == Axis.new_leading_axis()):
            return rank
        axis = axis.static_axis_index()
    a = int(axis)
    if a < 0:
        a += rank
    if not 0 <= a <= rank if allow_end else not 0 <= a < rank:
        raise ValueError("%s: axis %d is out of range for rank %d" % (op_name, axis, rank))
    return a


def reshape(x, shape, begin_axis=None, end_axis=None, name=""):
    (x,) = sanitize_operands(x, names=["x"])
    shape = (shape,) if isinstance(shape, int) else tuple(int(d) for d in shape)
    if x._shape is not None:  # check the axes now; with an unknown input shape the shape rule does
        _reshape_range({"begin_axis": begin_axis, "end_axis": end_axis}, len(x._shape))
    return make("Reshape", [x], {"shape": shape, "begin_axis": begin_axis, "end_axis": end_axis}, name)


def _reshape_range(attributes, rank):
    """The static axes [begin, end) that reshape replaces, for an input of this rank."""
    begin, end = attributes.get("begin_axis"), attributes.get("end_axis")
    b = 0 if begin is None else _static_index(begin, rank, "reshape", True)
    e = rank if end is None else _static_index(end, rank, "reshape", True)
    return b, e


# -- slice ------------------------------------------------------------------------------------------

def _slice_bounds(dim, begin, end, stride):
    """CNTK's slice bounds: negative indices count from the end, an end index of 0 means the end."""
    b = begin + dim if begin < 0 else begin
    e = dim if end == 0 else (end + dim if end < 0 else end)
    return max(0, min(b, dim)), max(0, min(e, dim)), stride


def _check_slice_range(x, dim, begin, end, stride):
    """CNTK 2.7 takes [begin, end) inside the axis (negative indices counting from its end, an end of 0 meaning
    the end), not empty, and at least as long as the stride (RuntimeError)."""
    b = begin + dim if begin < 0 else begin
    e = dim if end == 0 else (end + dim if end < 0 else end)
    if not 0 <= b < e <= dim:
        raise RuntimeError("Slice operation index range [%d,%d), interpreted as [%d,%d), is invalid for input '%s' "
                           "shape %s" % (begin, end, b, e, x.name or x.uid, x._shape))
    if e - b < stride:
        raise RuntimeError("Slice of '%s': stride %d is invalid for interval [%d, %d)" % (x.name or x.uid, stride, b, e))


def _slice_infer(inputs, attributes):
    (x,) = inputs
    if x._shape is None:
        return [OutputSpec(None, x._dtype, x._dynamic_axes)]
    shape = list(x._shape)
    for a, b, e, s in zip(attributes["axes"], attributes["begins"], attributes["ends"], attributes["strides"]):
        if not -len(shape) <= a < len(shape):
            raise ValueError("slice: axis %d is out of range for an input of shape %s" % (a, x._shape))
        a = a % len(shape)
        if shape[a] == FreeDimension:  # sized by the data: known only when both bounds count from the start
            shape[a] = -(-(e - b) // abs(s)) if b >= 0 and e > 0 else FreeDimension
            continue
        if s > 0:
            _check_slice_range(x, shape[a], b, e, s)
        lo, hi, st = _slice_bounds(shape[a], b, e, s)
        n = max(0, -(-(hi - lo) // abs(st)))
        if n == 0:
            raise announced(RuntimeValueError, "slice: the slice [%d:%d] of axis %d (size %d) of '%s' is empty"
                            % (b, e, a, shape[a], x.name or x.uid))
        shape[a] = n
    return [OutputSpec(tuple(shape), x._dtype, x._dynamic_axes)]


def _slice(x, index, backwards=()):
    x = x[index]
    for dim, stride in backwards:  # a negative stride: the range's elements from its last one, |stride| apart
        x = x.flip(dim)[(_pyslice(None),) * dim + (_pyslice(None, None, -stride),)]
    return x


def _slice_prepare(node):
    x = node._inputs[0]
    n_dyn = x._n_dynamic
    idx = [_pyslice(None)] * (n_dyn + len(x._shape))
    rank = len(x._shape)
    backwards = []
    for a, b, e, s in zip(*(node._attributes[k] for k in ("axes", "begins", "ends", "strides"))):
        # CNTK's bounds are Python's, except that an end of 0 means the end of the axis; a negative stride takes
        # the same range [begin, end) backwards, starting from its last element
        idx[n_dyn + a % rank] = _pyslice(b, None if e == 0 else e, s if s > 0 else 1)
        if s < 0:
            backwards.append((n_dyn + a % rank, s))
    return {"index": tuple(idx), "backwards": tuple(backwards)}


def _slice_public(attrs, node):
    rank = len(node.inputs[0].shape)
    axes = [native_axis(a, rank) for a in attrs["axes"]]
    if len(axes) == 1:
        return {"axis": axes[0], "beginIndex": attrs["begins"][0], "endIndex": attrs["ends"][0],
                "sliceStrides": attrs["strides"][0]}
    return {"axisVec": axes, "beginIndexVec": list(attrs["begins"]), "endIndexVec": list(attrs["ends"]),
            "sliceStridesVec": list(attrs["strides"])}


register_op("Slice", _slice_infer, _slice, prepare=_slice_prepare, algebra="slice", public_attributes=_slice_public)


def slice(x, axis, begin_index, end_index, strides=None, name=""):
    (x,) = sanitize_operands(x, names=["x"])
    listed = isinstance(axis, (list, tuple))
    axes = list(axis) if listed else [axis]
    begins = list(begin_index) if listed else [begin_index]
    ends = list(end_index) if listed else [end_index]
    strides = ([1] * len(axes) if strides is None else (list(strides) if listed else [strides]))
    rank = len(x._shape) if x._shape is not None else None  # unknown: the shape rule resolves the axes
    for a in axes:
        if isinstance(a, Axis) and a.is_dynamic_axis:
            raise RuntimeError("slice: axis %s of '%s' is a dynamic axis; slice takes static axes (a sequence is sliced "
                               "by cntk.sequence.slice)" % (a, x.name or x.uid))
    axes = [normalize_axis(a, rank, "slice") for a in axes]
    for s in strides:
        if int(s) == 0:
            raise ValueError("slice: strides must not be 0, got %r" % (strides,))
    return make("Slice", [x], {"axes": tuple(axes), "begins": tuple(int(b) for b in begins),
                               "ends": tuple(int(e) for e in ends), "strides": tuple(int(s) for s in strides)},
                name)


def getitem(x, key):
    """x[key]: selects an output of a multi-output Function, or slices static axes. An int keeps its axis
    (as a slice of size 1), a list of ints splices the selected elements, ... anchors the rest at the end."""
    outputs = getattr(x, "outputs", None)
    if outputs is not None and len(outputs) > 1:
        if not isinstance(key, int):
            raise KeyError("a Function with %d outputs is indexed by one int (the output), got %r"
                           % (len(outputs), key))
        return outputs[key]
    keys = key if isinstance(key, tuple) else (key,)
    result = sanitize_operands(x, names=["x"])[0]
    offset = 0
    # Keras' CNTK backend sets the global option align_axis: the first keys then index the dynamic axes (as
    # many as default_options(axis_offset=...) says, all of them by default), which cannot be sliced
    if get_global_option("align_axis", 0) == 1 and result.dynamic_axes:
        offset = -get_default_override(None, axis_offset=default_override_or(len(result.dynamic_axes)))
    for k, item in enumerate(keys):
        if item is Ellipsis:
            offset = -len(keys)
            continue
        axis = k + offset
        if isinstance(item, int):
            item = _pyslice(item, item + 1 if item != -1 else None)
        if isinstance(item, _pyslice):
            # as CNTK 2.7: an axis is sliced only when start or stop is given (and not 0); its step alone
            # (x[::2]) selects the whole axis, which the shapes of models trained under CNTK rely on
            if item.start or item.stop:
                result = slice(result, axis, item.start or 0, item.stop or 0, item.step or 1)
        elif isinstance(item, (list, tuple)):
            if not item or not all(isinstance(i, int) for i in item):
                raise IndexError("index lists must hold ints, got %r" % (item,))
            parts = [slice(result, axis, i, i + 1 if i != -1 else 0) for i in item]
            result = parts[0] if len(parts) == 1 else splice(*parts, axis=axis)
        else:
            raise IndexError("index of type %s is not supported; use ints, slices, lists of ints or ..."
                             % type(item).__name__)
    return result


# -- splice -----------------------------------------------------------------------------------------

_NEW_LEADING = Axis.new_leading_axis().static_axis_index()


def splice_axis(attributes, inputs):
    """The splice's axis (a Python static axis index) for inputs of known shapes: Axis.new_leading_axis() is the
    axis before the highest-ranked input's first (a block's placeholders may have no shape when it is spliced)."""
    a = attributes["axis"]
    if a == _NEW_LEADING:
        return -(max(len(i._shape) for i in inputs) + 1)
    return a


def _splice_infer(inputs, attributes):
    dtype = operands_dtype(inputs)
    axes = operand_dynamic_axes("Splice", inputs, broadcast=False)
    if any(i._shape is None for i in inputs):
        return [OutputSpec(None, dtype, axes)]
    rank = max(len(i._shape) for i in inputs)
    a = splice_axis(attributes, inputs)
    if a >= rank:  # CNTK 2.7 adds new axes only in front (negative axes)
        raise ValueError("splice: axis %d is out of range for inputs of rank %d (a new axis is spliced along with a "
                         "negative axis)" % (a, rank))
    rank = max(rank, -a)  # an axis before the inputs' first splices along a new axis of size 1
    a = a + rank if a < 0 else a
    shapes = [(1,) * (rank - len(i._shape)) + tuple(i._shape) for i in inputs]
    out = list(shapes[0])
    along = [s[a] for s in shapes]
    # an unknown size along the splice axis leaves the sum unknown (inferred before free, as in CNTK)
    out[a] = (-1 if -1 in along else min(along)) if min(along) < 0 else sum(along)
    for k in range(rank):  # axes of size 1 broadcast, as in CNTK; an inferred size takes the known one
        if k == a:
            continue
        sizes = {s[k] for s in shapes} - {1, -1}
        if len(sizes) > 1:
            # CNTK names the axis in its own order (the last first) and the first operand disagreeing with the ones
            # before it
            first = next(s[k] for s in shapes if s[k] not in (1, -1))
            culprit = next(j for j, s in enumerate(shapes) if s[k] not in (1, -1, first))
            raise announced(ValueError, "Splice: Conflicting dimensionality of axis %d between operand #%d (%d) and "
                            "other(s) (%d).\n\n(cntk-compat: splice along axis %r of %s)"
                            % (rank - 1 - k, culprit, shapes[culprit][k], first, attributes["axis"],
                               ", ".join(repr(i) for i in inputs)))
        out[k] = sizes.pop() if sizes else -1 if any(s[k] == -1 for s in shapes) else 1
    return [OutputSpec(tuple(out), dtype, axes)]


def _splice(*tensors, dim, targets, n_dyn_out):
    parts = []
    for t, (n_dyn, shape) in zip(tensors, targets):
        if n_dyn != n_dyn_out:
            if n_dyn == 0:
                t = t.expand(tuple(tensors[[k for k, tg in enumerate(targets) if tg[0] == n_dyn_out][0]]
                                   .shape[:n_dyn_out]) + tuple(t.shape))
            else:
                t = t.reshape(tuple(t.shape[:n_dyn]) + (1,) * (n_dyn_out - n_dyn) + tuple(t.shape[n_dyn:]))
        if any(d < 0 for d in shape):  # free dimensions: the tensor's own sizes
            own = tuple(t.shape[n_dyn_out:])
            shape = tuple(own[k - len(shape) + len(own)] if d < 0 else d for k, d in enumerate(shape))
        t = t.reshape(tuple(t.shape[:n_dyn_out]) + shape)
        parts.append(t)
    if len(parts) > 1:  # dynamic axes and static axes of size 1 broadcast (all but the splice axis)
        full = torch.broadcast_shapes(*[tuple(p.shape[:dim]) + (1,) + tuple(p.shape[dim + 1:]) for p in parts])
        parts = [p.expand(tuple(full[:dim]) + (p.shape[dim],) + tuple(full[dim + 1:])) for p in parts]
    return torch.cat(parts, dim=dim)


def _splice_prepare(node):
    out = node._outputs[0]
    rank = len(out._shape)
    a = splice_axis(node._attributes, node._inputs)
    a = a + rank if a < 0 else a
    targets = tuple((i._n_dynamic, (1,) * (rank - len(i._shape)) + tuple(i._shape)) for i in node._inputs)
    return {"dim": out._n_dynamic + a, "targets": targets, "n_dyn_out": out._n_dynamic}


register_op("Splice", _splice_infer, _splice, prepare=_splice_prepare,
            public_attributes=lambda attrs, node: {"axis": native_axis(splice_axis(attrs, node.inputs),
                                                                       len(node.inputs[0].shape))})


def splice(*inputs, **kw_axis_name):
    axis = kw_axis_name.pop("axis", -1)
    name = kw_axis_name.pop("name", "")
    if kw_axis_name:
        raise TypeError("splice: unexpected keyword arguments %s" % sorted(kw_axis_name))
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    elif len(inputs) == 1:   # CNTK 2.7: nothing to splice, the input itself as a Function
        from .misc import combine
        return combine(sanitize_operands(inputs[0], names=["input 0"], numpy_precision=False))
    ops = sanitize_operands(*inputs, names=["input %d" % k for k in range(len(inputs))], numpy_precision=False)
    if isinstance(axis, Axis):
        if axis == Axis.new_leading_axis():
            axis = _NEW_LEADING  # kept as such; splice_axis places it once the inputs' shapes are known
        else:
            if ops and not axis.is_dynamic_axis:   # a dynamic one: static_axis_index's ValueError, as CNTK's
                _refuse_dynamic_axis(axis, ops[0], "splice")
            axis = axis.static_axis_index()
    if not ops:
        # CNTK 2.7 refuses a splice of nothing by its axis, counted from the end of a rank-0 shape (with a
        # negative axis its native code crashes instead)
        raise announced(ValueError, "Axis 'Axis('staticAxisIdx=%d')' is out of bounds for the rank '0' it applies "
                                    "to." % (-1 - int(axis)))
    return make("Splice", ops, {"axis": int(axis)}, name)


# -- transpose / swapaxes ---------------------------------------------------------------------------

def transpose_perm(attributes, rank):
    """The permutation of a Transpose node over an operand of this rank: ``perm``, or, for swapaxes of an operand
    whose rank was not known when it was made (a placeholder), the identity with its two ``swap`` axes
    exchanged."""
    if attributes["perm"] is not None:
        return tuple(attributes["perm"])
    a1, a2 = (normalize_axis(a, rank, "swapaxes", name) for a, name in zip(attributes["swap"], ("axis1", "axis2")))
    perm = list(range(rank))
    perm[a1], perm[a2] = perm[a2], perm[a1]
    return tuple(perm)


def _transpose_infer(inputs, attributes):
    (x,) = inputs
    if x._shape is None:
        return [OutputSpec(None, x._dtype, x._dynamic_axes)]
    rank = len(x._shape)
    perm = transpose_perm(attributes, rank)
    if len(perm) > rank:    # CNTK 2.7's native code indexes the operand's axes by the permutation
        raise announced(RuntimeError, "vector::_M_range_check: __n (which is %d) >= this->size() (which is %d)\n\n"
                        "(cntk-compat: transpose: the permutation %s has more axes than its operand %s)"
                        % (rank, rank, perm, x._shape))
    # a shorter permutation (CNTK 2.7 builds it, permuting the last axes, and refuses it when it evaluates)
    lead = rank - len(perm)
    return [OutputSpec(tuple(x._shape[:lead]) + tuple(x._shape[lead + p] for p in perm), x._dtype,
                       x._dynamic_axes)]


def _transpose(x, dims):
    return x.permute(dims)


def _transpose_prepare(node):
    x = node._inputs[0]
    n = x._n_dynamic
    perm = transpose_perm(node._attributes, len(x._shape))
    if len(perm) != len(x._shape):
        raise announced(ValueError, "%s TransposeDimensions operation: Specified permutation doesn't match operand"
                        "\n\n(cntk-compat: the permutation %s of transpose '%s' has %d axes, its operand %s %d)"
                        % (node.uid, perm, node._name or node.uid, len(perm), x._shape, len(x._shape)))
    return {"dims": tuple(range(n)) + tuple(n + p for p in perm)}


def _transpose_public(attrs, node):
    """swapaxes: CNTK's two axes (column-major indices); transpose: CNTK's permutation, innermost axis first (output
    axis i is input axis axisVec[i])."""
    x = node._inputs[0]
    if x._shape is None:
        return dict(attrs)
    r = len(x._shape)
    if attrs.get("swap") is not None:
        a1, a2 = (normalize_axis(a, r, "swapaxes") for a in attrs["swap"])
        return {"axis1": Axis(r - 1 - a1), "axis2": Axis(r - 1 - a2)}
    perm = transpose_perm(attrs, r)
    n = len(perm)   # r, or fewer (see _transpose_infer)
    return {"axisVec": [Axis(n - 1 - perm[n - 1 - i]) for i in range(n)]}


register_op("Transpose", _transpose_infer, _transpose, prepare=_transpose_prepare, public_name="TransposeAxes",
            public_attributes=_transpose_public)


def transpose(x, perm, name=""):
    (x,) = sanitize_operands(x, names=["x"])
    if isinstance(perm, (int, Axis)):
        raise TypeError("transpose expects a permutation; to swap two axes use swapaxes")
    # CNTK 2.7 checks the permutation by itself (its elements index its own length, negative ones from its end)
    # before it looks at the operand
    n = len(perm)
    if not all(-n <= p < n for p in perm):
        raise ValueError("invalid permutation element: elements must be from {-len(perm), ..., len(perm)-1} "
                         "(transpose: perm %s)" % (tuple(perm),))
    perm = tuple(int(p) + n if p < 0 else int(p) for p in perm)
    if len(set(perm)) != n:
        raise ValueError("duplicate item in permutation (transpose: perm %s)" % (perm,))
    return make("Transpose", [x], {"perm": perm}, name)


def swapaxes(x, axis1=0, axis2=1, name=""):
    (x,) = sanitize_operands(x, names=["x"])
    # the two axes are kept (CNTK reports them); the permutation once the rank is known (a placeholder's is not)
    swap = tuple(a.static_axis_index() if isinstance(a, Axis) else int(a) for a in (axis1, axis2))
    perm = None if x._shape is None else transpose_perm({"perm": None, "swap": swap}, len(x._shape))
    return make("Transpose", [x], {"perm": perm, "swap": swap}, name)


# -- squeeze / expand_dims / flatten: all pure reshapes ---------------------------------------------

def _squeeze_infer(inputs, attributes):
    (x,) = inputs
    shape, axes = x._shape, attributes["axes"]
    if shape is None:
        return [OutputSpec(None, x._dtype, x._dynamic_axes)]
    if axes is None:
        new = tuple(d for d in shape if d != 1)
    else:
        idx = {normalize_axis(a, len(shape), "squeeze", "axes") for a in axes}
        for a in sorted(idx):
            if shape[a] != 1:
                raise RuntimeValueError("squeeze: axis %d of shape %s has size %d, expected 1" % (a, shape, shape[a]))
        new = tuple(d for k, d in enumerate(shape) if k not in idx)
    return [OutputSpec(new, x._dtype, x._dynamic_axes, x._is_sparse)]


def _expand_dims_infer(inputs, attributes):
    (x,) = inputs
    if x._shape is None:
        return [OutputSpec(None, x._dtype, x._dynamic_axes)]
    shape = tuple(x._shape)
    a = expand_dims_position(attributes["axis"], len(shape), x)
    return [OutputSpec(shape[:a] + (1,) + shape[a:], x._dtype, x._dynamic_axes, x._is_sparse)]


def expand_dims_position(axis, rank, x=None):
    """Where expand_dims(axis) puts the new axis in an operand of this rank, as CNTK 2.7: numpy's position for a
    negative axis, but after axis k for a non-negative k (CNTK's own example: a (2, 3) input expanded at 0 is
    (2, 1, 3)), which the shapes of models built under CNTK rely on; Axis.new_leading_axis() puts it in front."""
    if axis == _NEW_LEADING:
        return 0
    if axis < 0:
        return normalize_axis(axis, rank + 1, "expand_dims")
    if axis >= rank:
        raise ValueError("expand_dims: axis %d is out of bounds for the rank %d of %r" % (axis, rank, x))
    return axis + 1


register_op("Squeeze", _squeeze_infer, _reshape, prepare=_reshape_prepare,  # CNTK keeps axes as -1 - axis
            public_attributes=lambda attrs, node: {} if attrs["axes"] is None else
            {"axisVec": [Axis(-1 - int(a)) for a in attrs["axes"]]})
register_op("ExpandDims", _expand_dims_infer, _reshape, prepare=_reshape_prepare,   # CNTK reports none
            public_attributes=lambda attrs, node: {})


def squeeze(x, axes=None, name=""):
    """Removes the static axes of size 1 (all of them, or those listed in axes)."""
    (x,) = sanitize_operands(x, names=["x"])
    if axes is not None:
        axes = tuple(a.static_axis_index() if isinstance(a, Axis) else int(a)
                     for a in (axes if isinstance(axes, (list, tuple)) else [axes]))
    return make("Squeeze", [x], {"axes": axes}, name)


def expand_dims(x, axis, name=""):
    """Inserts a static axis of size 1 (where: expand_dims_position)."""
    (x,) = sanitize_operands(x, names=["x"])
    if isinstance(axis, Axis):
        _refuse_dynamic_axis(axis, x, "expand_dims")
        axis = axis.static_axis_index()
    return make("ExpandDims", [x], {"axis": int(axis)}, name)


def _refuse_dynamic_axis(axis, x, op_name):
    """CNTK 2.7's RuntimeError for a dynamic (or all-axes) Axis given to an op of static axes."""
    if axis._index is None:
        raise RuntimeError("%s: axis %s of '%s' is not a static axis" % (op_name, axis, x.name or x.uid))


def flatten(x, axis=None, name=""):
    """A matrix (product of the axes before axis, product of the rest), as CNTK 2.7: axis 0 (the default) gives
    (1, n); a negative axis counts from the end so that -1 gives (n, 1)."""
    (x,) = sanitize_operands(x, names=["x"])
    shape = x._shape
    if isinstance(axis, Axis) and axis == Axis.default_batch_axis():
        a = len(shape)   # CNTK 2.7: flattened as if the batch axis followed the static ones, (n, 1)
    elif isinstance(axis, Axis) and axis._index is None:
        raise RuntimeError("flatten: axis %s of '%s' is neither static nor the batch axis" % (axis, x.name or x.uid))
    elif axis is None:
        a = 0
    elif isinstance(axis, int) and axis < 0:
        a = len(shape) + 1 + axis
        if a < 0:
            raise ValueError("flatten: axis %d is out of range for rank %d" % (axis, len(shape)))
    else:
        a = _static_index(axis, len(shape), "flatten", True)
    new = (math.prod(shape[:a]), math.prod(shape[a:]))
    return make("Reshape", [x], {"shape": new, "begin_axis": None, "end_axis": None}, name)


# -- depth_to_space / space_to_depth ---------------------------------------------------------------
# Channel k = (i * block + j) * C + c of the deep tensor holds pixel (h * block + i, w * block + j) of channel c.

def _depth_space_infer(to_space):
    op_name = "depth_to_space" if to_space else "space_to_depth"

    def infer(inputs, attributes):
        (x,) = inputs
        if x._shape is None:
            return [OutputSpec(None, x._dtype, x._dynamic_axes)]
        if len(x._shape) != 3:
            raise RuntimeValueError("%s: operand must have shape (C, H, W), got %s" % (op_name, x._shape))
        b = attributes["block_size"]
        c, h, w = x._shape
        if to_space:
            if c % (b * b):
                raise RuntimeValueError("%s: the %d channels are not divisible by block_size**2 = %d"
                                        % (op_name, c, b * b))
            shape = (c // (b * b), h * b, w * b)
        else:
            if h % b or w % b:
                raise RuntimeValueError("%s: the spatial shape (%d, %d) is not divisible by block_size %d"
                                 % (op_name, h, w, b))
            shape = (c * b * b, h // b, w // b)
        return [OutputSpec(shape, x._dtype, x._dynamic_axes)]
    return infer


def _depth_to_space(x, n_dyn, block):
    lead = tuple(x.shape[:n_dyn])
    c, h, w = x.shape[n_dyn:]
    y = x.reshape(lead + (block, block, c // (block * block), h, w))
    y = y.permute(*range(n_dyn), n_dyn + 2, n_dyn + 3, n_dyn, n_dyn + 4, n_dyn + 1)
    return y.reshape(lead + (c // (block * block), h * block, w * block))


def _space_to_depth(x, n_dyn, block):
    lead = tuple(x.shape[:n_dyn])
    c, h, w = x.shape[n_dyn:]
    y = x.reshape(lead + (c, h // block, block, w // block, block))
    y = y.permute(*range(n_dyn), n_dyn + 2, n_dyn + 4, n_dyn, n_dyn + 1, n_dyn + 3)
    return y.reshape(lead + (c * block * block, h // block, w // block))


def _block_prepare(node):
    return {"n_dyn": node._inputs[0]._n_dynamic, "block": node._attributes["block_size"]}


def _block_public(attrs, node):
    return {"blockSize": attrs["block_size"]}


register_op("DepthToSpace", _depth_space_infer(True), _depth_to_space, prepare=_block_prepare,
            public_attributes=_block_public)
register_op("SpaceToDepth", _depth_space_infer(False), _space_to_depth, prepare=_block_prepare,
            public_attributes=_block_public)


def _block_op(op_name, public, operand, block_size, name):
    if not float(block_size).is_integer() or int(block_size) < 1:
        raise ValueError("%s: block_size must be a positive integer, got %r" % (public, block_size))
    (operand,) = sanitize_operands(operand, names=["operand"])
    return make(op_name, [operand], {"block_size": int(block_size)}, name)


def depth_to_space(operand, block_size, name=""):
    """Moves blocks of channels into block_size x block_size spatial blocks: (C*b*b, H, W) -> (C, b*H, b*W)."""
    return _block_op("DepthToSpace", "depth_to_space", operand, block_size, name)


def space_to_depth(operand, block_size, name=""):
    """The inverse of depth_to_space: (C, b*H, b*W) -> (C*b*b, H, W)."""
    return _block_op("SpaceToDepth", "space_to_depth", operand, block_size, name)


# -- pad --------------------------------------------------------------------------------------------
CONSTANT_PAD, REFLECT_PAD, SYMMETRIC_PAD = 0, 1, 2


def _pad_infer(inputs, attributes):
    (x,) = inputs
    if x._shape is None:
        return [OutputSpec(None, x._dtype, x._dynamic_axes)]
    pattern = attributes["pattern"]
    if len(pattern) != len(x._shape):
        raise RuntimeError("pad: pattern has %d entries for an input of rank %d" % (len(pattern), len(x._shape)))
    return [OutputSpec(tuple(d + a + b for d, (a, b) in zip(x._shape, pattern)), x._dtype, x._dynamic_axes)]


def _pad(x, flat, mode, value):
    if mode == "constant":
        return torch.nn.functional.pad(x, flat, mode="constant", value=value)
    return _mirror(x, flat, edge_included=(mode == "symmetric"))


def _mirror(x, flat, edge_included):
    """Mirror padding: symmetric repeats the edge element, reflect mirrors around it."""
    skip = 0 if edge_included else 1
    for k in range(0, len(flat), 2):
        dim = x.dim() - 1 - k // 2
        lo, hi = flat[k], flat[k + 1]
        parts = []
        if lo:
            parts.append(x.narrow(dim, skip, lo).flip(dim))
        parts.append(x)
        if hi:
            parts.append(x.narrow(dim, x.shape[dim] - skip - hi, hi).flip(dim))
        x = torch.cat(parts, dim)
    return x


def _pad_prepare(node):
    flat = []
    for a, b in reversed(node._attributes["pattern"]):
        flat.extend([a, b])
    return {"flat": tuple(flat), "mode": node._attributes["mode"], "value": node._attributes["constant_value"]}


_PAD_MODES = {"constant": 0, "reflect": 1, "symmetric": 2}


def _pad_public(attrs, node):
    pattern = list(reversed([tuple(p) for p in attrs["pattern"]]))
    return {"paddingHead": [int(p[0]) for p in pattern], "paddingFoot": [int(p[1]) for p in pattern],
            "paddingMode": _PAD_MODES.get(str(attrs["mode"]).lower(), attrs["mode"]),
            "paddingConstantValue": float(attrs["constant_value"])}


register_op("Pad", _pad_infer, _pad, prepare=_pad_prepare, public_attributes=_pad_public)


def pad(x, pattern, mode=CONSTANT_PAD, constant_value=0, name=""):
    (x,) = sanitize_operands(x, names=["x"])
    modes = {CONSTANT_PAD: "constant", REFLECT_PAD: "reflect", SYMMETRIC_PAD: "symmetric"}
    if mode not in modes:
        raise ValueError("pad: mode must be CONSTANT_PAD, REFLECT_PAD or SYMMETRIC_PAD, got %r" % (mode,))
    pattern = tuple((int(a), int(b)) for a, b in pattern)
    if any(a < 0 or b < 0 for a, b in pattern):   # CNTK 2.7's binding takes unsigned sizes only
        raise NotImplementedError("pad: the pattern %s has a negative size (padding cannot crop)" % (pattern,))
    return make("Pad", [x], {"pattern": pattern, "mode": modes[mode], "constant_value": float(constant_value)},
                name)
