"""ONNX import: an ONNX model as a Function of this package's ops, the way CNTK 2.7's importer builds it.

Every ONNX graph input becomes an input variable without dynamic axes whose shape is the ONNX shape, symbolic
dimensions (batch, ``Sequence``) as FreeDimension; data are fed in the file's layout (CNTK's exports: sequence
axis first, then a batch axis of size 1). Initializers become Constants, as CNTK 2.7 makes them (a model built
on an imported one trains only its own Parameters), and the result evaluates, clones and saves like any Function. Ops with an ONNX batch axis (Conv, pooling,
BatchNormalization, LRN, DepthToSpace, ...) run on that axis as this package's batch axis (to_batch ..
unpack_batch), so their outputs have a free leading dimension, as in CNTK. Each function is named after its ONNX
node. A node without a mapping fails the load naming it.
"""
import numpy as np

_FLOAT = {1: np.float32, 11: np.float64, 10: np.float16}
_INT_TYPES = {2, 3, 4, 5, 6, 7, 12, 13}
_BOOL = 9
_INT64_MAX = np.iinfo(np.int64).max


class Unsupported(ValueError):
    pass


def _C():
    import cntk_compat
    return cntk_compat


def _attr(node, name, default=None):
    import onnx.helper
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def _const(v, what):
    """The numpy value of a constant operand (initializer or Constant node)."""
    C = _C()
    if isinstance(v, (C.Constant, C.Parameter)):
        return np.asarray(v.value)
    raise Unsupported("%s must be a constant" % what)


class _Context(object):
    def __init__(self, node, opset):
        self.node = node
        self.opset = opset
        self.name = node.name or (node.output[0] if node.output else "")
        self.count = 0

    def inner(self):
        self.count += 1
        return "%s_%d" % (self.name, self.count)

    def attr(self, name, default=None):
        return _attr(self.node, name, default)


def _rank(v):
    return len(v.shape)


def _axis(k, v):
    k = int(k)
    return k + _rank(v) if k < 0 else k


# ------------------------------------------------------------------------------------------ elementwise
def _unary(name, **kw):
    def build(ctx, ins):
        return getattr(_C(), name)(ins[0], name=ctx.name, **kw)
    return build


def _binary(name):
    def build(ctx, ins):
        return getattr(_C(), name)(ins[0], ins[1], name=ctx.name)
    return build


def _variadic(name):
    def build(ctx, ins):
        C = _C()
        y = ins[0]
        for k, i in enumerate(ins[1:]):
            y = getattr(C, name)(y, i, name=ctx.name if k == len(ins) - 2 else ctx.inner())
        return y if len(ins) > 1 else C.alias(y, name=ctx.name)
    return build


def _mean(ctx, ins):
    C = _C()
    total = _variadic("plus")(_Context(ctx.node, ctx.opset), ins) if len(ins) > 1 else ins[0]
    return C.element_divide(total, np.asarray(len(ins), dtype=ins[0].dtype), name=ctx.name)


def _with_attrs(name, mapping, defaults):
    def build(ctx, ins):
        kw = {ours: ctx.attr(theirs, defaults[theirs]) for theirs, ours in mapping.items()}
        return getattr(_C(), name)(ins[0], name=ctx.name, **kw)
    return build


def _selu(ctx, ins):
    C = _C()
    alpha, gamma = ctx.attr("alpha", 1.67326319217681884765625), ctx.attr("gamma", 1.05070102214813232421875)
    return C.selu(ins[0], gamma, alpha, name=ctx.name)


def _hard_sigmoid(ctx, ins):
    return _C().hard_sigmoid(ins[0], ctx.attr("alpha", 0.2), ctx.attr("beta", 0.5), name=ctx.name)


def _prelu(ctx, ins):
    return _C().param_relu(ins[1], ins[0], name=ctx.name)


def _dropout(ctx, ins):
    ratio = ctx.attr("ratio", 0.5)
    if len(ins) > 1:
        ratio = float(_const(ins[1], "Dropout's ratio"))
    return _C().dropout(ins[0], ratio, name=ctx.name)


def _cast(ctx, ins):
    C = _C()
    to = ctx.attr("to")
    if to == _BOOL:
        return C.not_equal(ins[0], np.zeros((), ins[0].dtype), name=ctx.name)
    if to in _FLOAT:
        if np.dtype(_FLOAT[to]) == np.dtype(ins[0].dtype):
            return C.alias(ins[0], name=ctx.name)
        return C.cast(ins[0], _FLOAT[to], name=ctx.name)
    if to in _INT_TYPES:  # integers are carried as floats (indices, counts), as CNTK does
        return C.floor(ins[0], name=ctx.name) if not isinstance(ins[0], C.Constant) else \
            C.Constant(np.floor(np.asarray(ins[0].value)), name=ctx.name)
    raise Unsupported("Cast to ONNX type %d" % to)


def _clip(ctx, ins):
    C = _C()
    if ctx.opset < 11:
        lo, hi = ctx.attr("min", -3.4028234663852886e38), ctx.attr("max", 3.4028234663852886e38)
    else:
        lo = float(_const(ins[1], "Clip's min")) if len(ins) > 1 and ins[1] is not None else -np.inf
        hi = float(_const(ins[2], "Clip's max")) if len(ins) > 2 and ins[2] is not None else np.inf
    return C.clip(ins[0], lo, hi, name=ctx.name)


def _where(ctx, ins):
    return _C().element_select(ins[0], ins[1], ins[2], name=ctx.name)


def _arg(name):
    def build(ctx, ins):
        C = _C()
        axis = _axis(ctx.attr("axis", 0), ins[0])
        y = getattr(C, name)(ins[0], axis, name=ctx.name if ctx.attr("keepdims", 1) else ctx.inner())
        return y if ctx.attr("keepdims", 1) else C.squeeze(y, [axis], name=ctx.name)
    return build


# ------------------------------------------------------------------------------------------ shapes
def _concat(ctx, ins):
    return _C().splice(*ins, axis=_axis(ctx.attr("axis"), ins[0]), name=ctx.name)


def _target_shape(src, target):
    src = list(src)
    out = [src[k] if d == 0 else d for k, d in enumerate(target)]
    if -1 in out:
        known = int(np.prod([d for d in out if d != -1]))
        if any(d < 0 for d in src):
            raise Unsupported("Reshape with -1 of an input with a free dimension")
        out[out.index(-1)] = int(np.prod(src)) // known
    return tuple(out)


def _reshape(ctx, ins):
    C = _C()
    x = ins[0]
    target = [int(d) for d in (_const(ins[1], "Reshape's shape") if len(ins) > 1 else ctx.attr("shape"))]
    if not any(d < 0 for d in x.shape):
        return C.reshape(x, _target_shape(x.shape, target), name=ctx.name)
    # free dimensions: the leading axes the target copies (0) stay as they are; the rest must be known
    kept = 0
    while kept < len(target) and kept < len(x.shape) and target[kept] == 0:
        kept += 1
    rest, tail = list(target[kept:]), x.shape[kept:]
    if any(d == 0 for d in rest) or (-1 in rest and any(d < 0 for d in tail)):
        raise Unsupported("Reshape of %s to %s: free dimensions the target does not keep" % (x.shape, target))
    if -1 in rest:
        rest[rest.index(-1)] = int(np.prod(tail)) // int(np.prod([d for d in rest if d != -1]))
    return C.reshape(x, tuple(rest), begin_axis=kept, name=ctx.name)


def _flatten(ctx, ins):
    x = ins[0]
    axis = _axis(ctx.attr("axis", 1), x)
    shape = x.shape
    if any(d < 0 for d in shape):
        raise Unsupported("Flatten of an input with free dimensions %s" % (shape,))
    return _C().reshape(x, (int(np.prod(shape[:axis])), int(np.prod(shape[axis:]))), name=ctx.name)


def _transpose(ctx, ins):
    x = ins[0]
    perm = ctx.attr("perm") or list(reversed(range(_rank(x))))
    return _C().transpose(x, [int(p) for p in perm], name=ctx.name)


def _slice(ctx, ins):
    C = _C()
    x = ins[0]
    if ctx.opset < 10:
        starts, ends, axes, steps = ctx.attr("starts"), ctx.attr("ends"), ctx.attr("axes"), None
    else:
        starts = _const(ins[1], "Slice's starts").tolist()
        ends = _const(ins[2], "Slice's ends").tolist()
        axes = _const(ins[3], "Slice's axes").tolist() if len(ins) > 3 and ins[3] is not None else None
        steps = _const(ins[4], "Slice's steps").tolist() if len(ins) > 4 and ins[4] is not None else None
    axes = list(range(len(starts))) if axes is None else [_axis(a, x) for a in axes]
    steps = steps or [1] * len(axes)
    begins, finals = [], []
    for a, b, e, s in zip(axes, starts, ends, steps):
        n = x.shape[a]
        if s != 1:
            raise Unsupported("Slice with steps %s" % (steps,))
        b, e = int(b), int(e)
        if n >= 0:
            b = max(0, min(n, b + n if b < 0 else b))
            e = max(0, min(n, e + n if e < 0 else e))
            e = 0 if e == n else e
        elif e >= _INT64_MAX // 2:
            e = 0
        begins.append(b)
        finals.append(e)
    return C.slice(x, axes, begins, finals, name=ctx.name)


def _axes_of(ctx, ins, position):
    if len(ins) > position and ins[position] is not None:
        return [int(a) for a in _const(ins[position], "axes")]
    return ctx.attr("axes")


def _squeeze(ctx, ins):
    x = ins[0]
    axes = _axes_of(ctx, ins, 1)
    axes = [k for k, d in enumerate(x.shape) if d == 1] if axes is None else sorted(_axis(a, x) for a in axes)
    if not any(d < 0 for d in x.shape):
        return _C().squeeze(x, axes, name=ctx.name)
    y = x  # free dimensions stay free: drop each axis as an empty reshape of its range
    for k, a in enumerate(reversed(axes)):
        y = _C().reshape(y, (), begin_axis=a, end_axis=a + 1, name=ctx.name if k == len(axes) - 1 else ctx.inner())
    return y


def _unsqueeze(ctx, ins):
    C = _C()
    x = ins[0]
    axes = sorted(int(a) for a in _axes_of(ctx, ins, 1))
    rank = _rank(x) + len(axes)
    shape = list(x.shape)
    axes = sorted(a + rank if a < 0 else a for a in axes)
    if not any(d < 0 for d in shape):
        for a in axes:
            shape.insert(a, 1)
        return C.reshape(x, tuple(shape), name=ctx.name)
    y = x
    for k, a in enumerate(axes):
        y = C.reshape(y, (1,), begin_axis=a, end_axis=a, name=ctx.name if k == len(axes) - 1 else ctx.inner())
    return y


def _softmax(name):
    def build(ctx, ins):
        C = _C()
        x = ins[0]
        rank = _rank(x)
        if name == "hardmax":
            return _hardmax(ctx, x)
        if ctx.opset >= 13:
            return getattr(C, name)(x, axis=_axis(ctx.attr("axis", -1), x), name=ctx.name)
        axis = _axis(ctx.attr("axis", 1), x)
        if axis == rank - 1:
            return getattr(C, name)(x, axis=rank - 1, name=ctx.name)
        if axis == 0:
            return getattr(C, name)(x, name=ctx.name)
        if any(d < 0 for d in x.shape[axis:]):
            raise Unsupported("%s over free dimensions" % name)
        flat = C.reshape(x, (int(np.prod(x.shape[axis:])),), begin_axis=axis, name=ctx.inner())
        y = getattr(C, name)(flat, axis=axis, name=ctx.inner())
        return C.reshape(y, x.shape[axis:], begin_axis=axis, name=ctx.name)
    return build


def _hardmax(ctx, x):
    from ..ops._common import make
    C = _C()
    rank = _rank(x)
    axis = _axis(ctx.attr("axis", -1 if ctx.opset >= 13 else 1), x)
    if ctx.opset >= 13 or axis == rank - 1:
        return make("Hardmax", [x], {"axis": axis}, ctx.name)
    if axis == 0:
        return make("Hardmax", [x], {"axis": None}, ctx.name)
    if any(d < 0 for d in x.shape[axis:]):
        raise Unsupported("Hardmax over free dimensions")
    flat = C.reshape(x, (int(np.prod(x.shape[axis:])),), begin_axis=axis, name=ctx.inner())
    y = make("Hardmax", [flat], {"axis": axis}, ctx.inner())
    return C.reshape(y, x.shape[axis:], begin_axis=axis, name=ctx.name)


def _pad(ctx, ins):
    C = _C()
    x = ins[0]
    mode = ctx.attr("mode", b"constant")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    modes = {"constant": C.ops.CONSTANT_PAD, "reflect": C.ops.REFLECT_PAD}
    if mode not in modes:
        raise Unsupported("Pad mode %s" % mode)
    if ctx.opset < 11:
        pads, value = ctx.attr("pads"), ctx.attr("value", 0.0)
    else:
        pads = _const(ins[1], "Pad's pads").tolist()
        value = float(_const(ins[2], "Pad's value")) if len(ins) > 2 and ins[2] is not None else 0.0
        if len(ins) > 3 and ins[3] is not None:
            raise Unsupported("Pad with axes")
    r = _rank(x)
    pattern = [(int(pads[k]), int(pads[k + r])) for k in range(r)]
    return C.pad(x, pattern, mode=modes[mode], constant_value=value, name=ctx.name)


def _reduce(name):
    def build(ctx, ins):
        C = _C()
        x = ins[0]
        axes = _axes_of(ctx, ins, 1) if ctx.opset >= 18 or name == "reduce_sum" and ctx.opset >= 13 else \
            ctx.attr("axes")
        axes = list(range(_rank(x))) if not axes else [_axis(a, x) for a in axes]
        return getattr(C, name)(x, axes, keepdims=bool(ctx.attr("keepdims", 1)), name=ctx.name)
    return build


# ------------------------------------------------------------------------------------------ products
def _matmul(ctx, ins):
    C = _C()
    a, b = ins
    if isinstance(b, (C.Constant, C.Parameter)) and _rank(b) == 2:
        return C.times(a, b, name=ctx.name)
    ra, rb = _rank(a), _rank(b)
    if ra >= 2 and rb >= 2 and all(d == 1 for d in a.shape[:-2]) and all(d == 1 for d in b.shape[:-2]):
        # leading axes of size 1 (CNTK's batch axis in its exports): a matrix product, then the leading ones back
        a2 = C.reshape(a, a.shape[-2:], name=ctx.inner()) if ra > 2 else a
        b2 = C.reshape(b, b.shape[-2:], name=ctx.inner()) if rb > 2 else b
        lead = (1,) * max(ra - 2, rb - 2)
        y = C.times(a2, b2, name=ctx.inner() if lead else ctx.name)
        return C.reshape(y, lead + tuple(y.shape), name=ctx.name) if lead else y
    if rb == 1:
        return C.times(a, b, name=ctx.name)
    if rb == 2:
        return C.times(a, b, name=ctx.name)
    raise Unsupported("MatMul of shapes %s and %s" % (a.shape, b.shape))


def _transposed(v, name):
    C = _C()
    if isinstance(v, (C.Constant, C.Parameter)):
        arr = np.ascontiguousarray(np.asarray(v.value).T)
        return C.Constant(arr, dtype=arr.dtype, name=v.name)
    return C.transpose(v, (1, 0), name=name)


def _gemm(ctx, ins):
    C = _C()
    a, b = ins[0], ins[1]
    if ctx.attr("transA", 0):
        a = _transposed(a, ctx.inner())
    if ctx.attr("transB", 0):
        b = _transposed(b, ctx.inner())
    alpha, beta = ctx.attr("alpha", 1.0), ctx.attr("beta", 1.0)
    has_c = len(ins) > 2 and ins[2] is not None
    y = C.times(a, b, name=ctx.name if alpha == 1.0 and not has_c else ctx.inner())
    if alpha != 1.0:
        y = C.element_times(y, np.asarray(alpha, dtype=y.dtype), name=ctx.name if not has_c else ctx.inner())
    if has_c:
        c = ins[2] if beta == 1.0 else C.element_times(ins[2], np.asarray(beta, dtype=y.dtype), name=ctx.inner())
        y = C.plus(y, c, name=ctx.name)
    return y


# ------------------------------------------------------------------------------------------ batch ops
def _per_sample(ctx, x, build):
    """build(sample) on x's leading axis taken as the batch axis; the result has a free leading dimension."""
    C = _C()
    inner = build(C.to_batch(x, name=ctx.inner()))
    return C.unpack_batch(inner, name=ctx.name)


def _pads(ctx, spatial):
    pads = ctx.attr("pads")
    auto = ctx.attr("auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    if auto not in ("NOTSET", "VALID"):
        return None, auto
    if not pads or auto == "VALID":
        return ([0] * spatial, [0] * spatial), None
    return (list(pads[:spatial]), list(pads[spatial:])), None


def _conv_geometry(ctx, w):
    """A Conv/ConvTranspose node's (spatial rank, strides, dilations, pads, auto_pad), ONNX's defaults filled in."""
    spatial = _rank(w) - 2
    strides = tuple(ctx.attr("strides") or (1,) * spatial)
    dilation = tuple(ctx.attr("dilations") or (1,) * spatial)
    pads, auto = _pads(ctx, spatial)
    return spatial, strides, dilation, pads, auto


def _conv(ctx, ins):
    from ..ops._common import make
    from ..ops.convolution import _attributes
    C = _C()
    x, w = ins[0], ins[1]
    spatial, strides, dilation, pads, auto = _conv_geometry(ctx, w)
    group = int(ctx.attr("group", 1))
    has_bias = len(ins) > 2 and ins[2] is not None

    def build(sample):
        if auto is not None:
            if auto not in ("SAME_UPPER", "SAME_LOWER"):
                raise Unsupported("Conv auto_pad %s" % auto)
            attrs = _attributes("convolution", strides, [True], (False,) + (True,) * spatial, dilation, 1, group)
        else:
            attrs = _attributes("convolution", strides, [True], (False,), dilation, 1, group,
                                lower_pad=(0,) + tuple(pads[0]), upper_pad=(0,) + tuple(pads[1]))
        y = make("Convolution", [w, sample], attrs, ctx.inner() if has_bias else ctx.name + "_conv")
        if has_bias:
            b = ins[2]
            bias = C.reshape(b, (b.shape[0],) + (1,) * spatial, name=ctx.inner()) \
                if not isinstance(b, (C.Constant, C.Parameter)) else \
                C.Constant(np.asarray(b.value).reshape((-1,) + (1,) * spatial), dtype=b.dtype, name=b.name)
            y = C.plus(y, bias, name=ctx.name + "_bias")
        return y
    return _per_sample(ctx, x, build)


def _conv_transpose(ctx, ins):
    """ConvTranspose (explicit pads, output_padding; group 1) as a per-sample convolution_transpose."""
    from ..core.function import Function
    from ..ops.convolution import _attributes
    C = _C()
    x, w = ins[0], ins[1]
    spatial, strides, dilation, pads, auto = _conv_geometry(ctx, w)
    extra = tuple(ctx.attr("output_padding") or (0,) * spatial)
    if auto is not None or ctx.attr("output_shape") is not None or int(ctx.attr("group", 1)) != 1:
        raise Unsupported("ConvTranspose with auto_pad %s, output_shape or groups" % auto)
    if any(d < 0 for d in x.shape[2:]):
        raise Unsupported("ConvTranspose over free spatial dimensions")
    kernel = w.shape[2:]
    out = tuple(s * (n - 1) + e + (k - 1) * d + 1 - lo - hi for n, k, s, d, e, lo, hi in
                zip(x.shape[2:], kernel, strides, dilation, extra, pads[0], pads[1]))
    has_bias = len(ins) > 2 and ins[2] is not None

    def build(sample):
        attrs = _attributes("convolution_transpose", strides, [True], (False,), dilation, 1, 1,
                            lower_pad=(0,) + tuple(pads[0]), upper_pad=(0,) + tuple(pads[1]))
        attrs["output_shape"] = (w.shape[1],) + out   # as CNTK's: the output channels too
        y = Function._primitive("ConvolutionTranspose", [w, sample], attrs, ctx.inner() if has_bias else
                                ctx.name + "_convT", display_name="Convolution").outputs[0]
        if has_bias:
            b = np.asarray(_const(ins[2], "ConvTranspose's bias"))
            bias = C.Constant(b.reshape((-1,) + (1,) * spatial), dtype=b.dtype, name=ins[2].name)
            y = C.plus(y, bias, name=ctx.name + "_bias")
        return y
    return _per_sample(ctx, x, build)


def _crop(ctx, ins):
    """ONNX's experimental Crop (CNTK 2.7 wrote crop_manual so): border [left, top, right, bottom], or a window
    of size scale at (left, top)."""
    from ..ops._common import make
    C = _C()
    x = ins[0]
    left, top, right, bottom = (int(b) for b in ctx.attr("border"))
    height, width = x.shape[2:]
    if ctx.attr("scale"):
        height, width = (int(d) for d in ctx.attr("scale"))
    else:
        if height < 0 or width < 0:
            raise Unsupported("Crop of free spatial dimensions")
        height, width = height - top - bottom, width - left - right
    # of the sample's rank, as CNTK's crop requires
    referent = C.Constant(np.zeros((1,) * (len(x.shape) - 3) + (height, width), x.dtype), name=ctx.inner())
    return _per_sample(ctx, x, lambda s: make("Crop", [s, referent], {"offset_x": left, "offset_y": top},
                                              ctx.name + "_crop"))


def _pool_options(ctx, x_spatial, window, strides):
    """CNTK's (auto_padding, ceil_out_dim) giving ONNX's pads, per axis; Unsupported when none does."""
    from ..ops._geometry import axis_geometry
    pads, auto = _pads(ctx, len(window))
    ceil = bool(ctx.attr("ceil_mode", 0))
    if auto is not None:
        return [True] * len(window), False
    autos, ceils = [], []
    for n, k, s, lo, hi in zip(x_spatial, window, strides, pads[0], pads[1]):
        for ap, co in ((False, ceil), (True, False), (False, True)):
            out, l2, h2 = axis_geometry(n, k, s, 1, ap, 0, 0, co)
            if h2 < 0 and (n + l2 - k) // s + 1 == out:
                h2 = 0
            want_out = ((n + lo + hi - k + (s - 1 if ceil else 0)) // s) + 1
            if l2 == lo and out == want_out and (h2 == hi or (ap and h2 <= hi)):
                autos.append(ap)
                ceils.append(co)
                break
        else:
            raise Unsupported("pooling pads %s over %s" % (pads, x_spatial))
    if len(set(ceils)) > 1:
        raise Unsupported("pooling pads %s over %s" % (pads, x_spatial))
    return autos, ceils[0]


def _pool(kind):
    def build_node(ctx, ins):
        C = _C()
        x = ins[0]
        window = tuple(int(k) for k in ctx.attr("kernel_shape"))
        strides = tuple(ctx.attr("strides") or (1,) * len(window))
        autos, ceil = _pool_options(ctx, x.shape[2:], window, strides)
        include = bool(ctx.attr("count_include_pad", 0))
        return _per_sample(ctx, x, lambda s: C.pooling(s, kind, window, strides, [False] + autos, ceil, include,
                                                       name=ctx.name + "_pool"))
    return build_node


def _global_pool(kind):
    def build(ctx, ins):
        C = _C()
        x = ins[0]
        if any(d < 0 for d in x.shape[2:]):
            raise Unsupported("global pooling over free dimensions")
        window = tuple(x.shape[2:])
        return _per_sample(ctx, x, lambda s: C.pooling(s, kind, window, window, name=ctx.name + "_pool"))
    return build


def _batch_norm(ctx, ins):
    C = _C()
    x = ins[0]
    channels = x.shape[1]
    spatial = _rank(x) - 2
    sample = tuple(x.shape[1:])
    # CNTK 2.7 writes a per-element (non-spatial) BatchNormalization with statistics of the sample's size
    per_element = spatial > 0 and all(d >= 0 for d in sample) and \
        _const(ins[1], "BatchNormalization's scale").size == int(np.prod(sample)) != channels
    shape = sample if per_element else (channels,)   # CNTK 2.7's importer makes spatial statistics (C,)
    params = []
    for v, tag in zip(ins[1:5], ("scale", "bias", "mean", "var")):
        arr = _const(v, "BatchNormalization's %s" % tag).reshape(shape)
        params.append(C.Constant(arr, dtype=arr.dtype, name=v.name))
    count = C.Constant(1, shape=(), name=ctx.name + "_count")
    eps = ctx.attr("epsilon", 1e-5)
    return _per_sample(ctx, x, lambda s: C.batch_normalization(s, *params, spatial=not per_element, epsilon=eps,
                                                               running_count=count, name=ctx.name + "_bn"))


def _lrn(ctx, ins):
    C = _C()
    size = int(ctx.attr("size"))
    if size % 2 != 1:
        raise Unsupported("LRN with an even size %d" % size)
    alpha, beta, bias = ctx.attr("alpha", 1e-4), ctx.attr("beta", 0.75), ctx.attr("bias", 1.0)
    return _per_sample(ctx, ins[0], lambda s: C.local_response_normalization(
        s, size // 2, bias, alpha, beta, name=ctx.name + "_lrn"))  # alpha scales the window's mean, as ONNX's


def _depth_space(name):
    def build(ctx, ins):
        C = _C()
        mode = ctx.attr("mode", b"DCR")
        if name == "depth_to_space" and (mode.decode() if isinstance(mode, bytes) else mode) != "DCR":
            raise Unsupported("DepthToSpace mode %s" % mode)
        return _per_sample(ctx, ins[0], lambda s: getattr(C, name)(s, int(ctx.attr("blocksize")),
                                                                   name=ctx.name + "_op"))
    return build


def _gather(ctx, ins):
    """ONNX's Gather (numpy's take) as CNTK's gather along the first axis between transposes."""
    C = _C()
    data, indices = ins
    k = _axis(ctx.attr("axis", 0), data)
    if k == 0:
        return C.gather(data, indices, name=ctx.name)
    perm = list(range(_rank(data)))
    perm[0], perm[k] = k, 0
    g = C.gather(C.transpose(data, perm, name=ctx.inner()), indices, name=ctx.inner())
    m = _rank(indices)  # g: indices' axes, data's axes 1..k-1, data's axis 0, data's axes after k
    order = [m + k - 1] + [m + j - 1 for j in range(1, k)] + list(range(m)) + list(range(m + k, _rank(g)))
    return C.transpose(g, order, name=ctx.name)


def _mean_variance_normalization(ctx, ins):
    C = _C()
    x = ins[0]
    axes = sorted(_axis(a, x) for a in (ctx.attr("axes") or [0, 2, 3]))
    rank = _rank(x)
    if axes == [0] + list(range(2, rank)):
        across = False
    elif axes == list(range(rank)):
        across = True
    else:
        raise Unsupported("MeanVarianceNormalization over axes %s" % (axes,))
    return _per_sample(ctx, x, lambda s: C.mean_variance_normalization(
        s, epsilon=1e-9, use_stats_across_channels=across, do_variance_scaling=True, name=ctx.name + "_mvn"))
    # ONNX defines MVN as (x - mean) / (std + 1e-9): CNTK's formula with epsilon 1e-9


def _top_k(ctx, ins):
    x = ins[0]
    k = int(ctx.attr("k")) if ctx.opset < 10 else int(_const(ins[1], "TopK's k").reshape(-1)[0])
    if ctx.attr("largest", 1) != 1:
        raise Unsupported("TopK with largest=0")
    return _C().top_k(x, k, axis=_axis(ctx.attr("axis", -1), x), name=ctx.name)


def _eye_like(ctx, ins):
    if ctx.attr("k", 0):
        raise Unsupported("EyeLike with k != 0")
    return _C().eye_like(ins[0], sparse_output=False, name=ctx.name)


def _one_hot(ctx, ins):
    C = _C()
    values = _const(ins[2], "OneHot's values").reshape(-1)
    if values.tolist() != [0, 1]:
        raise Unsupported("OneHot with values %s (only 0 and 1)" % values.tolist())
    depth = int(_const(ins[1], "OneHot's depth").reshape(-1)[0])
    axis = int(ctx.attr("axis", -1))
    return C.one_hot(ins[0], depth, False, axis=axis if axis < 0 else axis, name=ctx.name)


def _lstm(ctx, ins):
    """ONNX LSTM (forward or reverse, default activations, full-length sequences) as a Recurrence of CNTK's LSTM
    over the static [sequence, batch, input] tensor: its output Y is [sequence, 1, batch, hidden]."""
    C = _C()
    x = ins[0]
    direction = ctx.attr("direction", b"forward")
    direction = direction.decode() if isinstance(direction, bytes) else direction
    if direction not in ("forward", "reverse"):
        raise Unsupported("LSTM direction %s" % direction)
    if ctx.attr("activations") not in (None, [b"Sigmoid", b"Tanh", b"Tanh"]) or ctx.attr("clip") is not None \
            or ctx.attr("input_forget", 0):
        raise Unsupported("LSTM with activations, clip or input_forget other than the defaults")
    if len(ins) > 4 and ins[4] is not None:
        raise Unsupported("LSTM with sequence_lens (sequences of different lengths)")
    if len(ins) > 7 and ins[7] is not None:
        raise Unsupported("LSTM with peepholes")
    if any(n for n in ctx.node.output[1:]):
        raise Unsupported("LSTM's Y_h / Y_c outputs")
    W = _const(ins[1], "LSTM's W")[0]
    R = _const(ins[2], "LSTM's R")[0]
    dim = R.shape[-1]
    order = (0, 3, 2, 1)  # ONNX's gate rows (i, o, f, c) <-> CNTK's blocks (i, g, f, o): the same permutation

    def cntk_gates(m):
        return np.ascontiguousarray(np.concatenate([m[..., k * dim:(k + 1) * dim] for k in order], axis=-1))
    bias = np.zeros(4 * dim, W.dtype)
    if len(ins) > 3 and ins[3] is not None:
        b = _const(ins[3], "LSTM's B")[0]
        bias = cntk_gates(b[:4 * dim] + b[4 * dim:])
    inits = []
    for k in (5, 6):
        if len(ins) > k and ins[k] is not None:
            v = _const(ins[k], "LSTM's initial state")
            if np.any(v != v.reshape(-1)[0]):
                raise Unsupported("LSTM with a per-batch-item initial state")
            inits.append(float(v.reshape(-1)[0]))
        else:
            inits.append(0.0)
    Wp = C.Constant(cntk_gates(W.T), dtype=W.dtype, name=ins[1].name)
    Hp = C.Constant(cntk_gates(R.T), dtype=W.dtype, name=ins[2].name)
    bp = C.Constant(bias, dtype=W.dtype, name=ins[3].name if len(ins) > 3 and ins[3] is not None else ctx.name + "_b")
    seq = _as_sequence(ctx, x)
    delay = C.sequence.future_value if direction == "reverse" else C.sequence.past_value
    h_ph = C.placeholder(shape=(dim,), dynamic_axes=seq.dynamic_axes)
    c_ph = C.placeholder(shape=(dim,), dynamic_axes=seq.dynamic_axes)
    h_prev = delay(h_ph, initial_state=np.asarray(inits[0], W.dtype), name=ctx.inner())
    c_prev = delay(c_ph, initial_state=np.asarray(inits[1], W.dtype), name=ctx.inner())
    G = C.plus(C.plus(C.times(seq, Wp, name=ctx.inner()), C.times(h_prev, Hp, name=ctx.inner()), name=ctx.inner()), bp,
               name=ctx.inner())
    i, g, f, o = (C.slice(G, 0, k * dim, (k + 1) * dim, name=ctx.inner()) for k in range(4))
    c = C.plus(C.element_times(C.sigmoid(f), c_prev), C.element_times(C.sigmoid(i), C.tanh(g)), name=ctx.inner())
    h = C.element_times(C.sigmoid(o), C.tanh(c), name=ctx.name + "_h")
    h.replace_placeholders({h_ph: h.output, c_ph: c.output})
    return _as_onnx_y(ctx, h)


def _as_sequence(ctx, x):
    """The static [sequence, batch, input] tensor as a sequence (one per batch item)."""
    C = _C()
    return C.to_sequence(C.to_batch(C.transpose(x, (1, 0, 2), name=ctx.inner()), name=ctx.inner()), name=ctx.inner())


def _as_onnx_y(ctx, h):
    """The sequence h as ONNX's Y: [sequence, 1 direction, batch, hidden]."""
    C = _C()
    padded = C.unpack_batch(C.sequence.unpack(h, 0, no_mask_output=True, name=ctx.inner()), name=ctx.inner())
    y = C.transpose(padded, (1, 0, 2), name=ctx.inner())
    return C.reshape(y, (1,), begin_axis=1, end_axis=1, name=ctx.name)  # num_directions


def _gru(ctx, ins):
    """ONNX GRU (linear_before_reset=0, forward or reverse, full-length sequences) as CNTK's GRU loop."""
    C = _C()
    direction = ctx.attr("direction", b"forward")
    direction = direction.decode() if isinstance(direction, bytes) else direction
    activations = [a.decode() if isinstance(a, bytes) else a for a in (ctx.attr("activations") or
                                                                        ["Sigmoid", "Tanh"])]
    acts = {"Tanh": C.tanh, "Relu": C.relu, "Sigmoid": C.sigmoid}
    if direction not in ("forward", "reverse") or len(activations) != 2 or activations[0] != "Sigmoid" or \
            activations[1] not in acts or ctx.attr("clip") is not None or ctx.attr("linear_before_reset", 0):
        raise Unsupported("GRU with direction %s, activations %s, clip or linear_before_reset"
                          % (direction, activations))
    if len(ins) > 4 and ins[4] is not None:
        raise Unsupported("GRU with sequence_lens (sequences of different lengths)")
    if any(n for n in ctx.node.output[1:]):
        raise Unsupported("GRU's Y_h output")
    W, R = _const(ins[1], "GRU's W")[0], _const(ins[2], "GRU's R")[0]
    dim = R.shape[-1]
    Rt = np.ascontiguousarray(R.T)  # (dim, 3 dim): z, r, h
    bias = np.zeros(3 * dim, W.dtype)
    if len(ins) > 3 and ins[3] is not None:
        b = _const(ins[3], "GRU's B")[0]
        if np.any(b[5 * dim:] != 0):
            raise Unsupported("GRU with a recurrent bias for the candidate (Rbh)")
        bias = b[:3 * dim] + np.concatenate([b[3 * dim:5 * dim], np.zeros(dim, b.dtype)])
    init = 0.0
    if len(ins) > 5 and ins[5] is not None:
        v = _const(ins[5], "GRU's initial_h")
        if np.any(v != v.reshape(-1)[0]):
            raise Unsupported("GRU with a per-item initial state")
        init = float(v.reshape(-1)[0])
    Wp = C.Constant(np.ascontiguousarray(W.T), dtype=W.dtype, name=ins[1].name)
    Hp = C.Constant(np.ascontiguousarray(Rt[:, :2 * dim]), dtype=W.dtype, name=ins[2].name)
    H1p = C.Constant(np.ascontiguousarray(Rt[:, 2 * dim:]), dtype=W.dtype, name=ins[2].name + "_h")
    bp = C.Constant(bias, dtype=W.dtype, name=ins[3].name if len(ins) > 3 and ins[3] is not None else ctx.name + "_b")
    seq = _as_sequence(ctx, ins[0])
    h_ph = C.placeholder(shape=(dim,), dynamic_axes=seq.dynamic_axes)
    delay = C.sequence.future_value if direction == "reverse" else C.sequence.past_value
    delayed = delay(h_ph, initial_state=np.asarray(init, W.dtype), name=ctx.inner())
    # the step as a block over (h_prev, x), as layers.GRU builds it: the input projection is part of the step, so
    # the loop runs exactly as the GRU the file was exported from (same operations in the same order)
    dh, x_arg = C.placeholder(name="dh"), C.placeholder(name="x")
    from_x = C.plus(bp, C.times(x_arg, Wp, name=ctx.inner()), name=ctx.inner())
    from_h = C.times(dh, Hp, name=ctx.inner())

    def block(v, k):
        return C.slice(v, 0, k * dim, (k + 1) * dim, name=ctx.inner())
    z = C.sigmoid(C.plus(block(from_x, 0), block(from_h, 0)), name=ctx.inner())
    r = C.sigmoid(C.plus(block(from_x, 1), block(from_h, 1)), name=ctx.inner())
    candidate = acts[activations[1]](C.plus(block(from_x, 2), C.times(C.element_times(dh, r), H1p)),
                                     name=ctx.inner())
    step = C.plus(C.element_times(C.minus(np.asarray(1, W.dtype), z), candidate), C.element_times(z, dh),
                  name=ctx.inner())
    h = C.as_block(step, [(dh, delayed), (x_arg, seq)], "GRU", ctx.name + "_h")
    h.replace_placeholders({h_ph: h.output})
    return _as_onnx_y(ctx, h)


def _rnn(ctx, ins):
    """ONNX RNN (forward or reverse, one activation, full-length sequences) as a loop over past/future values."""
    C = _C()
    direction = ctx.attr("direction", b"forward")
    direction = direction.decode() if isinstance(direction, bytes) else direction
    activations = [a.decode() if isinstance(a, bytes) else a for a in (ctx.attr("activations") or ["Tanh"])]
    acts = {"Tanh": C.tanh, "Relu": C.relu, "Sigmoid": C.sigmoid}
    if direction not in ("forward", "reverse") or len(activations) != 1 or activations[0] not in acts or \
            ctx.attr("clip") is not None:
        raise Unsupported("RNN with direction %s, activations %s or clip" % (direction, activations))
    if len(ins) > 4 and ins[4] is not None:
        raise Unsupported("RNN with sequence_lens (sequences of different lengths)")
    if any(n for n in ctx.node.output[1:]):
        raise Unsupported("RNN's Y_h output")
    W, R = _const(ins[1], "RNN's W")[0], _const(ins[2], "RNN's R")[0]
    dim = R.shape[-1]
    bias = np.zeros(dim, W.dtype)
    if len(ins) > 3 and ins[3] is not None:
        b = _const(ins[3], "RNN's B")[0]
        bias = b[:dim] + b[dim:]
    init = 0.0
    if len(ins) > 5 and ins[5] is not None:
        v = _const(ins[5], "RNN's initial_h")
        if np.any(v != v.reshape(-1)[0]):
            raise Unsupported("RNN with a per-item initial state")
        init = float(v.reshape(-1)[0])
    Wp = C.Constant(np.ascontiguousarray(W.T), dtype=W.dtype, name=ins[1].name)
    Hp = C.Constant(np.ascontiguousarray(R.T), dtype=W.dtype, name=ins[2].name)
    bp = C.Constant(bias, dtype=W.dtype, name=ins[3].name if len(ins) > 3 and ins[3] is not None else ctx.name + "_b")
    seq = _as_sequence(ctx, ins[0])
    h_ph = C.placeholder(shape=(dim,), dynamic_axes=seq.dynamic_axes)
    delay = C.sequence.future_value if direction == "reverse" else C.sequence.past_value
    h_prev = delay(h_ph, initial_state=np.asarray(init, W.dtype), name=ctx.inner())
    G = C.plus(C.plus(C.times(seq, Wp, name=ctx.inner()), C.times(h_prev, Hp, name=ctx.inner()), name=ctx.inner()),
               bp, name=ctx.inner())
    h = acts[activations[0]](G, name=ctx.name + "_h")
    h.replace_placeholders({h_ph: h.output})
    return _as_onnx_y(ctx, h)


OPS = {
    "ConvTranspose": _conv_transpose, "Crop": _crop,
    "LSTM": _lstm, "RNN": _rnn, "GRU": _gru, "Gather": _gather, "OneHot": _one_hot, "TopK": _top_k, "EyeLike": _eye_like, "MeanVarianceNormalization": _mean_variance_normalization,
    "Abs": _unary("abs"), "Neg": _unary("negate"), "Exp": _unary("exp"), "Log": _unary("log"),
    "Sqrt": _unary("sqrt"), "Reciprocal": _unary("reciprocal"), "Floor": _unary("floor"), "Ceil": _unary("ceil"),
    "Sigmoid": _unary("sigmoid"), "Tanh": _unary("tanh"), "Relu": _unary("relu"), "Sin": _unary("sin"),
    "Cos": _unary("cos"), "Tan": _unary("tan"), "Asin": _unary("asin"), "Acos": _unary("acos"),
    "Atan": _unary("atan"), "Sinh": _unary("sinh"), "Cosh": _unary("cosh"), "Asinh": _unary("asinh"),
    "Atanh": _unary("atanh"), "Identity": _unary("alias"), "Softsign": _unary("softsign"),
    "Softplus": _unary("softplus"), "Not": _unary("element_not"), "Round": _unary("round"),
    "Elu": _with_attrs("elu", {"alpha": "alpha"}, {"alpha": 1.0}),
    "LeakyRelu": _with_attrs("leaky_relu", {"alpha": "alpha"}, {"alpha": 0.01}),
    "Selu": _selu, "HardSigmoid": _hard_sigmoid, "PRelu": _prelu, "Dropout": _dropout, "Cast": _cast,
    "Add": _binary("plus"), "Sub": _binary("minus"), "Mul": _binary("element_times"),
    "Div": _binary("element_divide"), "Pow": _binary("pow"), "Less": _binary("less"), "Greater": _binary("greater"),
    "Equal": _binary("equal"), "LessOrEqual": _binary("less_equal"), "GreaterOrEqual": _binary("greater_equal"),
    "And": _binary("element_and"), "Or": _binary("element_or"), "Xor": _binary("element_xor"),
    "Max": _variadic("element_max"), "Min": _variadic("element_min"), "Sum": _variadic("plus"), "Mean": _mean,
    "Clip": _clip, "Where": _where, "ArgMax": _arg("argmax"), "ArgMin": _arg("argmin"),
    "Concat": _concat, "Pad": _pad, "Reshape": _reshape, "Flatten": _flatten, "Transpose": _transpose, "Slice": _slice,
    "Squeeze": _squeeze, "Unsqueeze": _unsqueeze, "Softmax": _softmax("softmax"),
    "LogSoftmax": _softmax("log_softmax"), "Hardmax": _softmax("hardmax"),
    "ReduceSum": _reduce("reduce_sum"), "ReduceMean": _reduce("reduce_mean"), "ReduceMax": _reduce("reduce_max"),
    "ReduceMin": _reduce("reduce_min"), "ReduceProd": _reduce("reduce_prod"),
    "ReduceLogSumExp": _reduce("reduce_log_sum_exp"), "ReduceL1": _reduce("reduce_l1"),
    "ReduceL2": _reduce("reduce_l2"), "ReduceSumSquare": _reduce("reduce_sum_square"),
    "MatMul": _matmul, "Gemm": _gemm, "Conv": _conv, "MaxPool": _pool(0), "AveragePool": _pool(1),
    "GlobalMaxPool": _global_pool(0), "GlobalAveragePool": _global_pool(1), "BatchNormalization": _batch_norm,
    "LRN": _lrn, "DepthToSpace": _depth_space("depth_to_space"), "SpaceToDepth": _depth_space("space_to_depth"),
}


def _shape(value_info):
    dims = value_info.type.tensor_type.shape.dim
    return tuple(d.dim_value if d.HasField("dim_value") else _C().FreeDimension for d in dims)


def load(data, what, folder=None):
    """The Function of an ONNX model given as bytes; ``folder`` is where its external data files lie (the model
    file's folder; None for a model given as a buffer, which must then hold all its tensors)."""
    import onnx
    from onnx import numpy_helper
    from onnx.external_data_helper import load_external_data_for_model, uses_external_data
    C = _C()
    try:
        model = onnx.load_from_string(data)
    except Exception as e:
        raise ValueError("Function.load: %s is not a readable ONNX model (%s: %s)" % (what, type(e).__name__, e)) \
            from None
    if any(uses_external_data(t) for t in model.graph.initializer):
        if folder is None:
            raise ValueError("Function.load: %s keeps its tensors in external data files; load it from its file "
                             "name so that they can be found beside it" % what)
        try:
            load_external_data_for_model(model, folder)
        except Exception as e:
            raise ValueError("Function.load: the external data files of %s could not be read from %s (%s: %s)"
                             % (what, folder, type(e).__name__, e)) from None
    opset = max([o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] or [1])
    graph = model.graph
    env = {}
    # this package names initializers by state_dict paths (hidden.W): the parameter's own name is the last part
    ours = model.producer_name == "cntk-compat"
    for init in graph.initializer:
        arr = numpy_helper.to_array(init)
        name = init.name.rsplit(".", 1)[-1] if ours else init.name
        arr = arr if arr.dtype.kind == "f" else arr.astype(np.float32)
        env[init.name] = C.Constant(arr, dtype=arr.dtype, name=name)
    for value in graph.input:
        if value.name in env:
            continue
        elem = value.type.tensor_type.elem_type
        dtype = _FLOAT.get(elem, np.float32 if elem in _INT_TYPES or elem == _BOOL else None)
        if dtype is None:
            raise ValueError("Function.load: %s: input %s has ONNX element type %d, which has no CNTK type"
                             % (what, value.name, elem))
        env[value.name] = C.input_variable(_shape(value), dtype=dtype, dynamic_axes=[], name=value.name)
    for node in graph.node:
        if node.op_type == "Constant":
            arr = numpy_helper.to_array(_attr(node, "value"))
            env[node.output[0]] = C.Constant(arr if arr.dtype.kind == "f" else arr.astype(np.float32),
                                             name=node.name or node.output[0])
            continue
        build = OPS.get(node.op_type) if node.domain in ("", "ai.onnx") else None
        if build is None:
            raise ValueError("Function.load: %s: ONNX node %s (%s) has no mapping to this package's ops"
                             % (what, node.name, node.op_type))
        try:
            ins = [env[i] if i else None for i in node.input]
        except KeyError as e:
            raise ValueError("Function.load: %s: node %s reads %s, which is not defined" % (what, node.name, e)) \
                from None
        try:
            result = build(_Context(node, opset), ins)
        except Unsupported as e:
            raise ValueError("Function.load: %s: ONNX node %s (%s): %s" % (what, node.name, node.op_type, e)) \
                from None
        if len(node.output) > 1:
            for name, v in zip(node.output, result.outputs):
                env[name] = v
        else:
            env[node.output[0]] = result
    outputs = [env[o.name] for o in graph.output]
    if len(outputs) == 1 and isinstance(outputs[0], C.Function):
        return outputs[0]
    return C.combine(outputs)
