"""CNTK's PrimitiveOpType codes and how each one is rebuilt from its record, and written back.

Each entry maps one op code (CNTK's numbering, which the format fixes) to a builder: builder(inputs, attrs,
name) -> Function, where inputs are this package's Variables in CNTK's (C++) input order and attrs the
record's attribute dictionary. Builders call this package's public ops, so the shape rules run as for any
graph built in Python. Attribute facts: static axes count from the innermost axis; shapes, strides and
per-axis flags are stored innermost first (reversed here).
"""
import numpy as np

from .cntkv2_values import (AXIS_ALL, AXIS_ALL_STATIC, AXIS_DYNAMIC, AXIS_END_STATIC, AXIS_UNKNOWN, DTYPE_OF_CODE,
                            Shape, StoredAxis, StoredArray)

OP_NAMES = {
    0: "Negate", 1: "Sigmoid", 2: "Tanh", 3: "ReLU", 4: "Exp", 5: "Log", 6: "Sqrt", 7: "Floor", 8: "Abs",
    9: "Reciprocal", 10: "Softmax", 11: "Hardmax", 12: "TransposeAxes", 13: "Where", 14: "Slice", 15: "Dropout",
    16: "Reshape", 17: "Pooling", 18: "SumAll", 19: "Plus", 20: "Minus", 21: "ElementTimes", 22: "Equal",
    23: "NotEqual", 24: "Less", 25: "LessEqual", 26: "Greater", 27: "GreaterEqual", 28: "PackedIndex",
    29: "GatherPacked", 30: "ScatterPacked", 31: "Times", 32: "TransposeTimes", 33: "Convolution",
    34: "SquaredError", 35: "CrossEntropyWithSoftmax", 36: "ClassificationError", 37: "PastValue",
    38: "FutureValue", 39: "ReduceElements", 40: "BatchNormalization", 41: "Clip", 42: "Select", 43: "Splice",
    44: "Combine", 45: "RandomSample", 46: "RandomSampleInclusionFrequency", 47: "ROIPooling", 48: "Logistic",
    49: "OptimizedRNNStack", 50: "ReconcileDynamicAxis", 51: "LogSoftmax", 52: "LogPlus", 53: "CosDistance",
    54: "Sin", 55: "Cos", 56: "Pass", 57: "Block", 58: "Unpooling", 59: "LambdaRank", 60: "NDCG",
    61: "EditDistanceError", 62: "NoOp", 63: "LabelsToGraph", 64: "StopGradient", 65: "ELU",
    66: "ForwardBackward", 67: "CosDistanceWithNegativeSamples", 68: "OneHot", 69: "Pow", 70: "ToSequence",
    71: "ToSequenceLike", 72: "UnpackSequence", 73: "Assign", 74: "Gather", 75: "StableSigmoid",
    76: "RandomDistribution", 77: "Sinh", 78: "Cosh", 79: "UnpackBatch", 80: "ToBatch", 81: "Asin", 82: "Acos",
    83: "Pad", 84: "Crop", 85: "Atanh", 86: "Asinh", 87: "TopK", 88: "Squeeze", 89: "ConstantOp", 90:
    "LatticeSequenceWithSoftmax", 91: "Cast", 92: "EyeLikeOp", 93: "CustomProxyOp", 94: "StraightThrough",
    95: "Tan", 96: "Atan", 97: "ConvolutionSequenceShape",
}


def _C():
    import cntk_compat
    return cntk_compat


def _rank(v):
    return len(v.shape)


def static_axis(stored, what):
    """A stored static axis as a Python axis (negative: counted from the innermost axis)."""
    if not isinstance(stored, StoredAxis):
        raise ValueError("%s: expected an axis, got %r" % (what, stored))
    if stored.index == AXIS_ALL_STATIC:
        return _C().Axis.all_static_axes()
    if stored.index == AXIS_ALL:
        return _C().Axis.all_axes()
    if stored.index == AXIS_DYNAMIC:
        return _C().Axis(stored.name, stored.ordered)
    if stored.index == AXIS_END_STATIC:
        return _C().Axis.end_static_axis()
    return -(stored.index + 1)


def dynamic_axes(stored_list):
    """The dynamic axes of a stored variable; None for CNTK's unknown axes (an unbound placeholder's)."""
    C = _C()
    if len(stored_list) == 1 and stored_list[0].index == AXIS_UNKNOWN:
        return None
    return tuple(C.Axis(a.name, a.ordered) if a.index == AXIS_DYNAMIC else C.Axis(a.index) for a in stored_list)


def _rev(values):
    """Per-axis values in Python order: NDShape values are reversed when read, vectors are not."""
    if isinstance(values, Shape):
        return tuple(values)
    if isinstance(values, (list, tuple)):
        return tuple(reversed(list(values)))
    return (values,)


def _same(fn):
    def build(inputs, attrs, name):
        return fn(*inputs, name=name)
    return build


def _unary(fn_name):
    def build(inputs, attrs, name):
        return getattr(_C(), fn_name)(inputs[0], name=name)
    return build


def _binary(fn_name):
    def build(inputs, attrs, name):
        return getattr(_C(), fn_name)(inputs[0], inputs[1], name=name)
    return build


def _softmax_like(fn_name):
    def build(inputs, attrs, name):
        axis = static_axis(attrs["axis"], fn_name) if "axis" in attrs else None
        fn = getattr(_C(), fn_name)
        return fn(inputs[0], name=name) if axis is None else fn(inputs[0], axis=axis, name=name)
    return build


def _times(inputs, attrs, name):
    # C++ Times(W, x) is Python times(x, W)
    return _C().times(inputs[1], inputs[0], output_rank=attrs.get("outputRank", 1),
                      infer_input_rank_to_map=attrs.get("inferInputRankToMap", -1), name=name)


def _transpose_times(inputs, attrs, name):
    return _C().times_transpose(inputs[1], inputs[0], name=name)


def _padding(attrs, what):
    """Explicit (lower, upper) pads of a record in Python axis order, or None (CNTK writes them for models it
    imported from ONNX; they override auto padding)."""
    lower, upper = attrs.get("lowerPad", Shape((0,))), attrs.get("upperPad", Shape((0,)))
    if any(lower) or any(upper):
        return _rev(lower), _rev(upper)
    return None


def _explicit(fn_name, inputs, attrs, pads, name, **options):
    """A Convolution/Pooling with explicit pads: the op with CNTK's attributes (the public functions take none)."""
    from ..ops._common import make
    if fn_name == "pooling":
        kind = attrs.get("poolingType", 0)
        node = _C().pooling(inputs[0], kind, _rev(attrs["poolingWindowShape"]), name=name, **options)
        a = dict(node.root_function._attributes, lower_pad=pads[0], upper_pad=pads[1])
        return make("Pooling", list(inputs), a, name)
    from ..ops.convolution import _attributes
    a = _attributes("convolution", options["strides"], options["sharing"], options["auto_padding"],
                    options["dilation"], 1, options.get("groups", 1), lower_pad=pads[0], upper_pad=pads[1])
    return make("Convolution", list(inputs), a, name)


def _convolution(inputs, attrs, name):
    C = _C()
    pads = _padding(attrs, "Convolution %s" % name)
    kernel, operand = inputs[0], inputs[1]
    if pads is not None:
        if attrs.get("transpose", False) or attrs.get("sequential", False):
            raise ValueError("Convolution %s: explicit lower/upper padding of a %s convolution is not supported"
                             % (name, "transposed" if attrs.get("transpose") else "sequential"))
        return _explicit("convolution", [kernel, operand], attrs, pads, name,
                         strides=_rev(attrs.get("strides", (1,))), sharing=_rev(attrs.get("sharing", [True])),
                         auto_padding=_rev(attrs.get("autoPadding", [True])),
                         dilation=_rev(attrs.get("dilation", (1,))), groups=attrs.get("groups", 1))
    common = dict(strides=_rev(attrs.get("strides", (1,))), sharing=_rev(attrs.get("sharing", [True])),
                  auto_padding=_rev(attrs.get("autoPadding", [True])),
                  dilation=_rev(attrs.get("dilation", (1,))),
                  max_temp_mem_size_in_samples=attrs.get("maxTempMemSizeInSamples", 0), name=name)
    if attrs.get("transpose", False):
        out = attrs.get("outputShape", Shape((0,)))
        return C.convolution_transpose(kernel, operand, output_shape=None if not any(out) else tuple(out),
                                       **common)
    return C.convolution(kernel, operand, sequential=bool(attrs.get("sequential", False)),
                         groups=attrs.get("groups", 1), **common)


def sequential_convolution(kernel, operand, attrs, name):
    """convolution(..., sequential=True) from the attributes of CNTK's Convolution record inside the chain CNTK
    writes for it (they describe the operand with its sequence axis moved after the channel axis)."""
    if _padding(attrs, "Convolution %s" % name) is not None:
        raise ValueError("Convolution %s: explicit lower/upper padding of a sequential convolution is not "
                         "supported" % name)
    return _C().convolution(kernel, operand, strides=_rev(attrs.get("strides", (1,))),
                            sharing=_rev(attrs.get("sharing", [True])),
                            auto_padding=_rev(attrs.get("autoPadding", [True])),
                            dilation=_rev(attrs.get("dilation", (1,))), sequential=True,
                            groups=attrs.get("groups", 1), name=name)


def _pooling(inputs, attrs, name):
    C = _C()
    pads = _padding(attrs, "Pooling %s" % name)
    kind = attrs.get("poolingType", 0)
    if pads is not None:
        return _explicit("pooling", inputs, attrs, pads, name, strides=_rev(attrs.get("strides", (1,))),
                         auto_padding=_rev(attrs.get("autoPadding", [False])),
                         ceil_out_dim=bool(attrs.get("ceilOutDim", False)),
                         include_pad=bool(attrs.get("includePad", False)))
    return C.pooling(inputs[0], C.MAX_POOLING if kind == 0 else C.AVG_POOLING,
                     _rev(attrs["poolingWindowShape"]), strides=_rev(attrs.get("strides", (1,))),
                     auto_padding=_rev(attrs.get("autoPadding", [False])),
                     ceil_out_dim=bool(attrs.get("ceilOutDim", False)), include_pad=bool(attrs.get("includePad", False)),
                     name=name)


def _unpooling(inputs, attrs, name):
    C = _C()
    if _padding(attrs, "Unpooling %s" % name) is not None:
        raise ValueError("Unpooling %s: explicit lower/upper padding is not supported" % name)
    return C.unpooling(inputs[0], inputs[1], C.MAX_UNPOOLING, _rev(attrs["unpoolingWindowShape"]),
                       strides=_rev(attrs.get("strides", (1,))), auto_padding=_rev(attrs.get("autoPadding", [False])),
                       name=name)


def _slice(inputs, attrs, name):
    x = inputs[0]
    if "axisVec" in attrs:
        axes = [static_axis(a, "Slice") for a in attrs["axisVec"]]
        begins, ends = list(attrs["beginIndexVec"]), list(attrs["endIndexVec"])
        strides = list(attrs.get("sliceStridesVec", [1] * len(axes)))
    else:
        axes, begins, ends = [static_axis(attrs["axis"], "Slice")], [attrs["beginIndex"]], [attrs["endIndex"]]
        strides = [attrs.get("sliceStrides", 1)]
    if len(axes) == 1 and not isinstance(axes[0], int):  # a slice along the sequence axis
        return _C().sequence.slice(x, begins[0], ends[0], name=name)
    return _C().slice(x, axes, begins, ends, strides if any(s != 1 for s in strides) else None, name=name)


def _reshape(inputs, attrs, name):
    x = inputs[0]
    new_shape = tuple(attrs["newShape"])
    rank = _rank(x)
    begin = attrs.get("beginAxis")
    end = attrs.get("endAxis")
    b = 0 if begin is None else (rank if begin.index == AXIS_END_STATIC else begin.index)
    e = rank if end is None or end.index == AXIS_END_STATIC else end.index
    if b == 0 and e >= rank:
        return _C().reshape(x, new_shape, name=name)
    # C++ axes [b, e) counted from the innermost are Python axes [rank - e, rank - b)
    return _C().reshape(x, new_shape, begin_axis=rank - e, end_axis=rank - b if b else None, name=name)


def _transpose_axes(inputs, attrs, name):
    x = inputs[0]
    rank = _rank(x)
    if "axisVec" in attrs:
        # CNTK's permutation, innermost first: output axis i is input axis perm[i]
        perm = [a.index for a in attrs["axisVec"]]
        py = [rank - 1 - perm[rank - 1 - i] for i in range(rank)]
        return _C().transpose(x, py, name=name)
    a1, a2 = static_axis(attrs["axis1"], "TransposeAxes"), static_axis(attrs["axis2"], "TransposeAxes")
    return _C().swapaxes(x, a1, a2, name=name)


def _dropout(inputs, attrs, name):
    C = _C()
    seed = attrs.get("rngSeed")
    kw = {} if seed is None else {"seed": int(seed)}
    f = C.dropout(inputs[0], attrs.get("dropoutRate", 0.0), name=name, **kw)
    f.root_function._attributes["rngOffset"] = int(attrs.get("rngOffset", 0))  # where its random stream was
    return f


_REDUCTIONS = {"Sum": "reduce_sum", "LogSum": "reduce_log_sum_exp", "Mean": "reduce_mean", "Max": "reduce_max",
               "Min": "reduce_min", "Prod": "reduce_prod", "Argmax": "argmax", "Argmin": "argmin"}


def _reduce(inputs, attrs, name):
    C = _C()
    op = attrs["reductionOpName"]
    if op not in _REDUCTIONS:
        raise ValueError("ReduceElements %s: unknown reduction %r" % (name, op))
    x = inputs[0]
    axes = [static_axis(a, "ReduceElements") for a in attrs["axisVec"]] if "axisVec" in attrs \
        else [static_axis(attrs["axis"], "ReduceElements")]
    keep = bool(attrs.get("reductionKeepDimensions", True))
    if len(axes) == 1 and isinstance(axes[0], C.Axis) and axes[0] == C.Axis.default_batch_axis():
        # a reduction over the batch axis (CNTK writes it inside its MultiAxisReduce block as '_batch_axes_subop')
        return getattr(C, _REDUCTIONS[op])(x, axis=axes[0], name=name)
    if len(axes) == 1 and isinstance(axes[0], C.Axis) and axes[0].is_dynamic_axis:
        if op == "Sum":
            return C.sequence.reduce_sum(x, name=name)
        if op == "Max":
            return C.sequence.reduce_max(x, name=name)
        raise ValueError("ReduceElements %s: %s over a dynamic axis is not supported" % (name, op))
    axis = axes[0] if len(axes) == 1 else tuple(axes)
    if keep and op not in ("Argmax", "Argmin") and isinstance(axis, C.Axis) and axis == C.Axis.all_static_axes() \
            and x.shape is not None:
        # kept dimensions over all static axes (CNTK's Python API writes False here): CNTK keeps each as 1
        axis = tuple(range(len(x.shape)))
    elif isinstance(axis, C.Axis):
        # all static axes or all axes: a scalar whatever the flag says (the Python API refuses keepdims=False
        # for an axis that is not a static index, as CNTK's does)
        keep = True
    fn = getattr(C, _REDUCTIONS[op])
    if op in ("Argmax", "Argmin"):
        return fn(x, axis=axis, name=name)
    return fn(x, axis=axis, keepdims=keep, name=name)


def _batch_normalization(inputs, attrs, name):
    C = _C()
    x, scale, bias, mean, var = inputs[:5]
    if len(inputs) > 5:
        count = inputs[5]
    else:  # files written before the running count was an input: CNTK injects a zero count
        count = C.Constant(np.zeros((), dtype=np.dtype(scale.dtype)), name="")
    return C.batch_normalization(x, scale, bias, mean, var, bool(attrs.get("spatial", False)),
                                 normalization_time_constant=attrs.get("normalizationTimeConstant", 0),
                                 blend_time_constant=attrs.get("blendTimeConstant", 0),
                                 epsilon=attrs.get("epsilon", 0.00001),
                                 use_cudnn_engine=bool(attrs.get("useCuDNNEngine", False)),
                                 disable_regularization=bool(attrs.get("disableRegularization", False)),
                                 name=name, running_count=count)


def _delay(fn_name):
    def build(inputs, attrs, name):
        fn = getattr(_C().sequence, fn_name)
        return fn(inputs[0], initial_state=inputs[1], time_step=attrs.get("offset", 1), name=name)
    return build


def _splice(inputs, attrs, name):
    return _C().splice(*inputs, axis=static_axis(attrs["axis"], "Splice"), name=name)


def _one_hot(inputs, attrs, name):
    return _C().one_hot(inputs[0], attrs["numClass"], sparse_output=bool(attrs.get("oneHotOutputSparse", False)),
                        axis=static_axis(attrs.get("onehotAxis", StoredAxis(0, "", False)), "OneHot"), name=name)


def _clip(inputs, attrs, name):
    return _C().clip(inputs[0], inputs[1], inputs[2], name=name)


def _select(inputs, attrs, name):
    return _C().element_select(inputs[0], inputs[1], inputs[2], name=name)


def _pass(inputs, attrs, name):
    return _C().alias(inputs[0], name=name)


def _elu(inputs, attrs, name):
    return _C().elu(inputs[0], name=name)


def _reconcile(inputs, attrs, name):
    return _C().reconcile_dynamic_axes(inputs[0], inputs[1], name=name)


def _cross_entropy(inputs, attrs, name):
    C = _C()
    if "axis" in attrs:
        return C.cross_entropy_with_softmax(inputs[0], inputs[1], axis=static_axis(attrs["axis"], "CE"), name=name)
    return C.cross_entropy_with_softmax(inputs[0], inputs[1], name=name)


def _classification_error(inputs, attrs, name):
    C = _C()
    kw = {"topN": attrs["topN"]} if "topN" in attrs else {}
    if len(inputs) == 3:  # CNTK 2.7's top-N primitive: its third input is a Constant holding N
        kw["topN"] = int(np.asarray(inputs[2].value).reshape(-1)[0])
        inputs = inputs[:2]
    if "axis" in attrs:
        kw["axis"] = static_axis(attrs["axis"], "ClassificationError")
    return C.classification_error(inputs[0], inputs[1], name=name, **kw)


def _logistic(inputs, attrs, name):
    C = _C()
    if len(inputs) == 3:
        return C.weighted_binary_cross_entropy(inputs[0], inputs[1], inputs[2], name=name)
    # the Logistic op of models saved before CNTK 2.7 made binary_cross_entropy an elementwise block: the sum of
    # y log p + (1 - y) log(1 - p) over the sample, computed as log(2 y p + (1 - y) - p), negated
    p, y = inputs
    per_element = C.log(C.minus(C.plus(C.element_times(2.0, C.element_times(y, p)), C.minus(1.0, y)), p))
    return C.negate(C.reduce_sum(per_element, axis=C.Axis.all_static_axes()), name=name)


def _gather(inputs, attrs, name):
    # C++ Gather(indices, reference) is gather(reference, indices); along the first axis CNTK keeps the axis
    axis = static_axis(attrs["axis"], "Gather") if "axis" in attrs else None
    return _C().gather(inputs[1], inputs[0], axis=axis, name=name)


def _squeeze(inputs, attrs, name):
    C = _C()
    if "axisVec" in attrs:
        return C.squeeze(inputs[0], [static_axis(a, "Squeeze") for a in attrs["axisVec"]], name=name)
    return C.squeeze(inputs[0], name=name)


def _pow(inputs, attrs, name):
    return _C().pow(inputs[0], inputs[1], name=name)


def _cast(inputs, attrs, name):
    from .cntkv2_values import DTYPE_OF_CODE
    return _C().cast(inputs[0], DTYPE_OF_CODE[attrs["newDataType"]], name=name)


def _stop_gradient(inputs, attrs, name):
    return _C().stop_gradient(inputs[0], name=name)


def _to_batch(inputs, attrs, name):
    return _C().to_batch(inputs[0], name=name)


def _unpack_batch(inputs, attrs, name):
    return _C().unpack_batch(inputs[0], name=name)


def _top_k(inputs, attrs, name):
    return _C().top_k(inputs[0], attrs["numItems"], axis=static_axis(attrs.get("axis", StoredAxis(0, "", True)),
                                                                     "TopK"), name=name)


def _unpack_sequence(inputs, attrs, name):
    return _C().sequence.unpack(inputs[0], attrs.get("sequenceUnpackPaddingValue", 0.0),
                                no_mask_output=bool(attrs.get("sequenceUnpackSuppressMaskOutput", False)), name=name)


def _pad(inputs, attrs, name):
    C = _C()
    pattern = list(zip(_rev(attrs["paddingHead"]), _rev(attrs["paddingFoot"])))
    return C.pad(inputs[0], pattern, mode=int(attrs.get("paddingMode", 0)),
                 constant_value=float(attrs.get("paddingConstantValue", 0.0)), name=name)


def _crop(inputs, attrs, name):
    if "offset" not in attrs:  # crop_automatic: the offsets follow from the graph's geometry
        if len(inputs) == 4:
            return _C().crop_automatic_with_ancestors(*inputs, name=name)
        return _C().crop_automatic(inputs[0], inputs[1], name=name)
    x, y = (int(v) for v in attrs["offset"])
    return _C().crop_manual(inputs[0], inputs[1], x, y, name=name)


def _constant_like(inputs, attrs, name):
    from ..ops._common import make
    return make("ConstantLike", [inputs[0]], {"value": float(attrs.get("fillValue", 0.0))}, name)


def _eye_like(inputs, attrs, name):
    return _C().eye_like(inputs[0], sparse_output=bool(attrs.get("OutputSparse", False)), name=name)


def _roipooling(inputs, attrs, name):
    C = _C()
    if int(attrs.get("poolingType", 0)) != 0:
        raise ValueError("ROIPooling with average pooling is not supported")
    return C.roipooling(inputs[0], inputs[1], C.MAX_POOLING, _rev(attrs["roiOutputShape"]),
                        float(attrs.get("spatialScale", 1.0)), name=name)


def _cosine_negative(inputs, attrs, name):
    shift, count = (int(np.asarray(v.value).reshape(-1)[0]) for v in inputs[2:4])
    return _C().cosine_distance_with_negative_samples(inputs[0], inputs[1], shift, count, name=name)


def _to_sequence(inputs, attrs, name):
    return _C().to_sequence(inputs[0], inputs[1] if len(inputs) > 1 else None,
                            sequence_axis_name_prefix=attrs.get("sequenceAxis", "toSequence_"), name=name)


def _to_sequence_like(inputs, attrs, name):
    return _C().to_sequence_like(inputs[0], inputs[1], name=name)


def _labels_to_graph(inputs, attrs, name):
    return _C().labels_to_graph(inputs[0], name=name)


def _forward_backward(inputs, attrs, name):
    return _C().forward_backward(inputs[0], inputs[1], int(attrs["BlankTokenId"]), int(attrs["DelayConstraint"]),
                                 name=name)


def _edit_distance_error(inputs, attrs, name):
    return _C().edit_distance_error(inputs[0], inputs[1], float(attrs["SubstitutionPenalty"]),
                                    float(attrs["DeletionPenalty"]), float(attrs["InsertionPenalty"]),
                                    bool(attrs["SquashInputs"]), [int(t) for t in attrs["TokensToIgnore"]], name=name)


def _optimized_rnnstack(inputs, attrs, name):
    return _C().optimized_rnnstack(inputs[0], inputs[1], attrs["hiddenSize"], attrs["numLayers"],
                                   bidirectional=bool(attrs.get("bidirectional", False)),
                                   recurrent_op=attrs.get("recurrentOp", "lstm"), name=name)


_DISTRIBUTIONS = {"uniform": ("uniform", "low", "high"), "normal": ("normal", "mean", "scale"),
                  "gumbel": ("gumbel", "loc", "scale"), "bernoulli": ("bernoulli", "mean", None)}


def _random_distribution(inputs, attrs, name):
    from .cntkv2_values import DTYPE_OF_CODE
    from .. import random
    kind = attrs["randomDistributionType"]
    if kind not in _DISTRIBUTIONS:
        raise ValueError("unknown random distribution %r" % kind)
    fn_name, first, second = _DISTRIBUTIONS[kind]
    args = list(attrs.get("randomDistributionArgs", []))
    kw = {first: float(args[0])} if args else {}
    if second and len(args) > 1:
        kw[second] = float(args[1])
    seed = int(attrs.get("rngSeed", 0))
    if inputs:
        f = getattr(random, fn_name + "_like")(inputs[0], seed=seed, name=name, **kw)
    else:
        f = getattr(random, fn_name)(tuple(attrs["newShape"]), dtype=DTYPE_OF_CODE[attrs.get("newDataType", 1)],
                                     seed=seed, name=name, **kw)
    f.root_function._attributes["rngOffset"] = int(attrs.get("rngOffset", 0))  # where its random stream was
    return f


def _sampling(fn_name):
    def build(inputs, attrs, name):
        f = getattr(_C(), fn_name)(inputs[0], attrs["numSamples"], bool(attrs.get("allowDuplicates", False)),
                                   seed=int(attrs.get("rngSeed", 0)), name=name)
        f.root_function._attributes["rngOffset"] = int(attrs.get("rngOffset", 0))
        return f
    return build


BUILDERS = {
    0: _unary("negate"), 1: _unary("sigmoid"), 2: _unary("tanh"), 3: _unary("relu"), 4: _unary("exp"),
    5: _unary("log"), 6: _unary("sqrt"), 7: _unary("floor"), 8: _unary("abs"), 9: _unary("reciprocal"),
    10: _softmax_like("softmax"), 11: _unary("hardmax"), 12: _transpose_axes, 14: _slice, 15: _dropout,
    16: _reshape, 17: _pooling, 19: _binary("plus"), 20: _binary("minus"), 21: _binary("element_times"),
    22: _binary("equal"), 23: _binary("not_equal"), 24: _binary("less"), 25: _binary("less_equal"),
    26: _binary("greater"), 27: _binary("greater_equal"), 31: _times, 32: _transpose_times, 33: _convolution,
    34: _binary("squared_error"), 35: _cross_entropy, 36: _classification_error, 37: _delay("past_value"),
    38: _delay("future_value"), 39: _reduce, 40: _batch_normalization, 41: _clip, 42: _select, 43: _splice,
    48: _logistic, 49: _optimized_rnnstack, 50: _reconcile, 51: _softmax_like("log_softmax"),
    52: _binary("log_add_exp"), 53: _binary("cosine_distance"), 54: _unary("sin"), 55: _unary("cos"),
    56: _pass, 58: _unpooling, 72: _unpack_sequence, 87: _top_k, 62: _pass, 64: _stop_gradient, 65: _elu, 68: _one_hot, 69: _pow, 74: _gather,
    61: _edit_distance_error, 63: _labels_to_graph, 66: _forward_backward, 70: _to_sequence, 71: _to_sequence_like,
    73: lambda inputs, attrs, name: _C().assign(inputs[0], inputs[1], name=name),
    59: lambda inputs, attrs, name: _C().lambda_rank(inputs[0], inputs[1], inputs[2], name=name),
    60: lambda inputs, attrs, name: _C().ndcg_at_1(inputs[0], inputs[1], inputs[2], name=name),
    94: lambda inputs, attrs, name: _C().straight_through_impl(inputs[0], name=name),
    93: lambda inputs, attrs, name: _C().custom_proxy_op(attrs["customOp"], tuple(attrs["outputShape"]),
                                                         DTYPE_OF_CODE[int(attrs["newDataType"])], inputs, name=name),
    83: _pad, 84: _crop, 89: _constant_like, 92: _eye_like, 47: _roipooling, 67: _cosine_negative,
    75: _unary("sigmoid"), 77: _unary("sinh"), 78: _unary("cosh"), 79: _unpack_batch, 80: _to_batch,
    81: _unary("asin"), 82: _unary("acos"), 85: _unary("atanh"), 86: _unary("asinh"), 88: _squeeze, 91: _cast,
    95: _unary("tan"), 96: _unary("atan"), 76: _random_distribution, 45: _sampling("random_sample"),
    46: _sampling("random_sample_inclusion_frequency"),
}
