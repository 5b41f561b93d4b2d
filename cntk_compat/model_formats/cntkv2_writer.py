"""Writing a Function in CNTK's v2 model format, the form CNTK 2.7's own save() writes.

Each registered op either has an encoder here (op code, CNTK's input order, attributes with the value types
CNTK reads them as), an expansion into encodable ops written as a block function under CNTK's op name (as CNTK
itself writes ELU, Softplus, ElementDivide, ...), or is listed in NOT_EXPRESSIBLE with the reason; a graph that
uses one of those cannot be written in this format (save() then keeps this package's archive format).
"""
import re

import numpy as np

from ..core.axis import BATCH_AXIS_NAME
from ..core.reinference import primitive_nodes
from ..core.uid import new_uid
from .cntkv2_ops import OP_NAMES
from .cntkv2_values import (AXIS_ALL, AXIS_ALL_STATIC, AXIS_DYNAMIC, AXIS_UNKNOWN, CODE_OF_DTYPE, Float32, Shape, SizeT,
                            StoredAxis)
from .cntkv2_wire import dictionary_parts

COMPOSITE_VERSION = 3
PRIMITIVE_VERSION = 24  # what CNTK 2.7 writes; it reads every older record version too
VARIABLE_VERSION = 1
_KIND = {"Input": 0, "Output": 1, "Parameter": 2, "Constant": 3, "Placeholder": 4}


class NotExpressible(ValueError):
    """The graph uses something CNTK's format cannot express."""


def _static(axis, rank, what):
    """A Python static axis as CNTK's stored axis (counted from the innermost)."""
    from ..core.axis import Axis
    if isinstance(axis, Axis):
        if axis._index is not None:
            axis = axis._index
        elif axis.name == "AllStaticAxes":
            return StoredAxis(AXIS_ALL_STATIC, "AllStaticAxes", False)
        else:
            return StoredAxis(AXIS_DYNAMIC, axis.name, axis.is_ordered)
    axis = int(axis)
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank:
        raise NotExpressible("%s: axis %d is outside a rank-%d operand" % (what, axis, rank))
    k = rank - 1 - axis
    return StoredAxis(k, "staticAxisIdx=%d" % k, True)


def _rank(v):
    return len(v._shape)


def _bools(values, rank):
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    return [bool(b) for b in reversed(values)]


def _shape(values):
    return Shape(int(v) for v in values)


# ------------------------------------------------------------------------------------------- encoders
# encoder(node) -> (op code, inputs in CNTK's order, attributes)

def _plain(code):
    def encode(node):
        return code, list(node._inputs), {}
    return encode


def _times(node):
    a = node._attributes
    return 31, [node._inputs[1], node._inputs[0]], {"outputRank": SizeT(a.get("output_rank", 1)),
                                                    "inferInputRankToMap": int(a.get("infer_input_rank_to_map", -1))}


def _transpose_times(node):
    return 32, [node._inputs[1], node._inputs[0]], {"outputRank": SizeT(1)}


def _softmax(node):
    axis = node._attributes.get("axis")
    x = node._inputs[0]
    if axis is not None and not (isinstance(axis, int) and axis in (-1, _rank(x) - 1) and _rank(x) == 1):
        raise NotExpressible("Softmax over axis %r of a rank-%d operand" % (axis, _rank(x)))
    return 10, [x], {}


def _softmax_is_plain(node):
    """Whether a softmax is CNTK's Softmax primitive: over all axes of the sample (one axis of a vector)."""
    axis = node._attributes.get("axis")
    x = node._inputs[0]
    return axis is None or (isinstance(axis, int) and axis in (-1, _rank(x) - 1) and _rank(x) == 1)


def _softmax_along_axis(ins, a):
    """CNTK 2.7's softmax(x, axis): exp(x - max) / sum(exp(x - max)) along the axis."""
    C = _C()
    x = ins[0]
    e = C.exp(C.minus(x, C.reduce_max(x, axis=a["axis"])))
    return C.element_divide(e, C.reduce_sum(e, axis=a["axis"]))


def _dropout(node):
    a = node._attributes
    return 15, list(node._inputs), {"dropoutRate": float(a.get("dropoutRate", 0.0)),
                                    "rngSeed": SizeT(a.get("rngSeed", 0)),
                                    "rngOffset": SizeT(a.get("rngOffset", 0))}


def _reshape(node):
    a = node._attributes
    x = node._inputs[0]
    r = _rank(x)
    b = a.get("begin_axis")
    e = a.get("end_axis")
    b = 0 if b is None else (b + r if b < 0 else b)
    e = r if e is None else (e + r if e < 0 else e)
    return 16, [x], {"newShape": _shape(a["shape"]), "beginAxis": StoredAxis(r - e, "staticAxisIdx=%d" % (r - e), True),
                     "endAxis": StoredAxis(r - b, "staticAxisIdx=%d" % (r - b), True)}


def _reshape_attributes(shape, rank):
    """A Reshape record's attributes: axes 0 to ``rank`` of its operand (all of them, CNTK's order) become
    ``shape``."""
    return {"newShape": _shape(shape), "beginAxis": StoredAxis(0, "staticAxisIdx=0", True),
            "endAxis": StoredAxis(rank, "staticAxisIdx=%d" % rank, True)}


def _primitive_record(code, uid, name, inputs, attributes):
    """A PrimitiveFunction record (``name`` None: none written)."""
    rec = {"version": SizeT(PRIMITIVE_VERSION), "type": "PrimitiveFunction", "op": SizeT(code), "uid": uid,
           "inputs": list(inputs), "attributes": attributes}
    if name is not None:
        rec["name"] = name
    return rec


def _slice(node):
    a = node._attributes
    x = node._inputs[0]
    r = _rank(x)
    return 14, [x], {"axisVec": [_static(ax, r, "Slice") for ax in a["axes"]],
                     "beginIndexVec": [int(v) for v in a["begins"]], "endIndexVec": [int(v) for v in a["ends"]],
                     "sliceStridesVec": [int(v) for v in a["strides"]]}


def _splice(node):
    ins = list(node._inputs)
    r = max(_rank(i) for i in ins)
    from ..ops.shaping import splice_axis
    axis = splice_axis(node._attributes, ins)
    if isinstance(axis, int) and axis == -(r + 1):  # Axis.new_leading_axis(): CNTK stores the index one past
        return 43, ins, {"axis": StoredAxis(r, "staticAxisIdx=%d" % r, True)}
    return 43, ins, {"axis": _static(axis, r, "Splice")}


def _transpose(node):
    from ..ops.shaping import transpose_perm
    x = node._inputs[0]
    r = _rank(x)
    perm = transpose_perm(node._attributes, r)
    n = len(perm)   # the operand's rank, or fewer axes (a permutation CNTK 2.7 builds and refuses to evaluate)
    # CNTK's permutation, innermost first: output axis i (CNTK) is input axis axisVec[i] (CNTK)
    cntk = [n - 1 - perm[n - 1 - i] for i in range(n)]
    return 12, [x], {"axisVec": [StoredAxis(k, "staticAxisIdx=%d" % k, True) for k in cntk]}


def _geometry_attributes(a, kernel_rank, what):
    if a.get("lower_pad") is not None or a.get("upper_pad") is not None:
        # explicit pads (ONNX-imported models), per axis as CNTK 2.7 writes those of the models it imports
        return {"lowerPad": _shape(_per_axis(a.get("lower_pad") or (0,), kernel_rank)),
                "upperPad": _shape(_per_axis(a.get("upper_pad") or (0,), kernel_rank))}
    return {"lowerPad": Shape((0,)), "upperPad": Shape((0,))}


def _per_axis(values, rank):
    values = tuple(values) if isinstance(values, (list, tuple)) else (values,)
    if len(values) > rank:
        values = values[len(values) - rank:]
    return (values[0],) * (rank - len(values)) + values


def _convolution(node, transpose=False):
    a = node._attributes
    w, x = node._inputs
    if a.get("reduction_rank", 1) != 1:
        raise NotExpressible("Convolution with reduction_rank %s" % a.get("reduction_rank"))
    r = _rank(x)
    attrs = {"strides": _shape(_per_axis(a["strides"], r)), "sharing": [True] * r,
             "autoPadding": _bools(_per_axis(a["auto_padding"], r), r),
             "dilation": _shape(_per_axis(a["dilation"], r)), "transpose": bool(transpose),
             "maxTempMemSizeInSamples": SizeT(0), "kernelShape": _shape(w._shape[1:] if not transpose
                                                                         else (w._shape[0],) + tuple(w._shape[2:])),
             "outputShape": Shape((0,)) if not a.get("output_shape") else _shape(a["output_shape"]),
             "groups": SizeT(a.get("groups", 1))}
    attrs.update(_geometry_attributes(a, r, "Convolution"))
    return 33, [w, x], attrs


def _pooling(node):
    a = node._attributes
    x = node._inputs[0]
    window = tuple(a["window"] or ())
    if not window:
        # global pooling: CNTK 2.7's GlobalMax/AveragePooling write a Pooling whose window is the operand's
        # spatial shape (every axis after the channel axis)
        window = tuple(x._shape[1:]) if x._shape is not None else ()
        if not window or any(d < 0 for d in window):
            raise NotExpressible("global pooling over an operand of shape %s" % (x._shape,))
    attrs = {"poolingType": SizeT(a["pooling_type"]), "poolingWindowShape": _shape(window),
             "strides": _shape(_per_axis(a["strides"], len(window))),
             "autoPadding": _bools(_per_axis(a["auto_padding"], len(window)), len(window)),
             "ceilOutDim": bool(a.get("ceil_out_dim", False)), "includePad": bool(a.get("include_pad", False))}
    attrs.update(_geometry_attributes(a, len(window), "Pooling"))
    return 17, [x], attrs


def _delay(code):
    def encode(node):
        return code, list(node._inputs), {"offset": SizeT(node._attributes.get("time_step", 1))}
    return encode


_REDUCTION_NAMES = {"sum": "Sum", "log_sum_exp": "LogSum", "mean": "Mean", "max": "Max", "min": "Min",
                    "prod": "Prod"}


def _reduce(node):
    a = node._attributes
    x = node._inputs[0]
    name = _REDUCTION_NAMES.get(a["kind"])
    if name is None:
        raise NotExpressible("reduction %r" % a["kind"])
    if a.get("all_dynamic") and a.get("axes") is None:
        # Axis.all_axes(): CNTK stores the AllAxes sentinel (the result is a scalar without dynamic axes)
        return 39, [x], {"reductionOpName": name, "axisVec": [StoredAxis(AXIS_ALL, "AllAxes", False)],
                         "reductionKeepDimensions": False}
    if a.get("batch") and not a.get("all_dynamic") and not a.get("axes") and a.get("keepdims", True):
        # over the batch axis alone: the record CNTK 2.7 writes inside its MultiAxisReduce block
        # ('_batch_axes_subop'), which CNTK loads as it stands
        return 39, [x], {"reductionOpName": name, "reductionKeepDimensions": True,
                         "axisVec": [StoredAxis(AXIS_DYNAMIC, "defaultBatchAxis", False)]}
    if a.get("batch") or a.get("all_dynamic"):
        raise NotExpressible("a reduction over the batch/dynamic axes")
    axes = a.get("axes")
    r = _rank(x)
    stored = [StoredAxis(AXIS_ALL_STATIC, "AllStaticAxes", False)] if axes is None else \
        [_static(ax, r, "Reduce") for ax in axes]
    # over all static axes CNTK writes keepDimensions False (the result is a scalar per sample)
    return 39, [x], {"reductionOpName": name, "axisVec": stored,
                     "reductionKeepDimensions": bool(a.get("keepdims", True)) and axes is not None}


def _arg_reduce(name):
    def encode(node):
        x = node._inputs[0]
        axis = node._attributes.get("axis")
        stored = StoredAxis(AXIS_ALL_STATIC, "AllStaticAxes", False) if axis is None \
            else _static(axis, _rank(x), name)
        return 39, [x], {"reductionOpName": name, "axis": stored, "reductionKeepDimensions": axis is not None}
    return encode


def _batch_normalization(node):
    a = node._attributes
    return 40, list(node._inputs), {
        "spatial": bool(a["spatial"]), "normalizationTimeConstant": float(a["normalization_time_constant"]),
        "blendTimeConstant": float(a["blend_time_constant"]), "epsilon": float(a["epsilon"]),
        "useCuDNNEngine": bool(a.get("use_cudnn_engine", False)),
        "disableRegularization": bool(a.get("disable_regularization", False))}


def _one_hot(node):
    a = node._attributes
    x = node._inputs[0]
    axis = a.get("axis", -1)
    r = _rank(x) + 1
    return 68, [x], {"numClass": SizeT(a["num_classes"]), "oneHotOutputSparse": bool(a.get("sparse_output", False)),
                     "onehotAxis": _static(axis, r, "OneHot")}


def _gather(node):
    if node._attributes.get("axis") is not None:   # gather(..., axis=0), CNTK's Gather keeping its axis, Axis(-1)
        return 74, [node._inputs[1], node._inputs[0]], {"axis": StoredAxis(-1, "staticAxisIdx=-1", True)}
    return 74, [node._inputs[1], node._inputs[0]], {}


def _gather_block(node):
    """Whether CNTK writes the gather as its GatherOp block: along an axis, unless given as axis 0."""
    a = node._attributes
    return a.get("axis") is not None and (a["axis"] != 0 or a.get("from_end", False))


def _gather_along_axis(ins, a):
    """CNTK's GatherOp block: TransposeAxes (the axis to the front), Gather, TransposeAxes back (ops.misc.gather_axes
    says which axes)."""
    from ..ops.misc import gather_axes
    C = _C()
    ref, idx = ins
    first, last = gather_axes(len(ref.shape), len(idx.shape), a["axis"], a.get("from_end", False))

    def swap(v, k):
        perm = list(range(len(v.shape)))
        perm[0], perm[k] = k, 0
        return C.transpose(v, perm) if k else v
    return swap(C.gather(swap(ref, first), idx), last)


def _cast(node):
    return 91, list(node._inputs), {"newDataType": int(CODE_OF_DTYPE[np.dtype(node._attributes["dtype"])])}


def _squeeze(node):
    axes = node._attributes.get("axes")
    x = node._inputs[0]
    if axes is None:
        return 88, [x], {}
    return 88, [x], {"axisVec": [_static(ax, _rank(x), "Squeeze") for ax in axes]}


def _top_k(node):
    a = node._attributes
    x = node._inputs[0]
    return 87, [x], {"numItems": SizeT(a["k"]), "axis": _static(a.get("axis", -1), _rank(x), "TopK")}


def _elu(node):
    if node._attributes.get("alpha", 1.0) != 1.0:
        raise NotExpressible("ELU with alpha %r" % node._attributes["alpha"])
    return 65, list(node._inputs), {}


def _optimized_rnnstack(node):
    a = node._attributes
    return 49, list(node._inputs), {"hiddenSize": SizeT(a["hiddenSize"]), "numLayers": SizeT(a["numLayers"]),
                                    "bidirectional": bool(a["bidirectional"]), "recurrentOp": a["recurrentOp"]}


def _random_distribution(node):
    a = node._attributes
    kind = a["kind"]
    attrs = {"randomDistributionType": kind,
             "randomDistributionArgs": [float(a["a"])] if kind == "bernoulli" else [float(a["a"]), float(a["b"])],
             "rngSeed": SizeT(a["rngSeed"]), "rngOffset": SizeT(a.get("rngOffset", 0))}
    if not node._inputs:
        out = node._outputs[0]
        attrs["newShape"] = _shape(out._shape)
        attrs["newDataType"] = int(CODE_OF_DTYPE[np.dtype(out._dtype)])
    return 76, list(node._inputs), attrs


def _sampling(code):
    def encode(node):
        a = node._attributes
        return code, list(node._inputs), {"numSamples": SizeT(a["num_samples"]),
                                          "allowDuplicates": bool(a["allow_duplicates"]),
                                          "rngSeed": SizeT(a["rngSeed"]), "rngOffset": SizeT(a.get("rngOffset", 0))}
    return encode


def _edit_distance_error(node):
    a = node._attributes
    return 61, list(node._inputs), {
        "SubstitutionPenalty": Float32(a["sub_pen"]), "DeletionPenalty": Float32(a["del_pen"]),
        "InsertionPenalty": Float32(a["ins_pen"]), "SquashInputs": bool(a["squash"]),
        "TokensToIgnore": [SizeT(t) for t in a["ignore"]]}


def _forward_backward(node):
    a = node._attributes
    return 66, list(node._inputs), {"BlankTokenId": SizeT(a["blank"]), "DelayConstraint": int(a["delay"])}


def _pad(node):
    a = node._attributes
    modes = {"constant": 0, "reflect": 1, "symmetric": 2}
    pattern = list(a["pattern"])
    # innermost axis first, as CNTK stores shapes
    return 83, list(node._inputs), {"paddingHead": [SizeT(p[0]) for p in reversed(pattern)],
                                    "paddingFoot": [SizeT(p[1]) for p in reversed(pattern)],
                                    "paddingMode": SizeT(modes[a["mode"]]),
                                    "paddingConstantValue": float(a.get("constant_value", 0.0))}


def _crop(node):
    a = node._attributes
    return 84, list(node._inputs), {"offset": [SizeT(a["offset_x"]), SizeT(a["offset_y"])]}


def _custom_proxy(node):
    a = node._attributes
    return 93, list(node._inputs), {"customOp": a["custom_op"], "outputShape": _shape(a["output_shape"]),
                                    "newDataType": int(CODE_OF_DTYPE[np.dtype(a["output_dtype"])])}


ENCODERS = {
    "Pad": _pad, "Crop": _crop, "CustomProxyOp": _custom_proxy,
    "EyeLikeOp": lambda n: (92, list(n._inputs), {"OutputSparse": bool(n._attributes.get("sparse_output", False))}),
    "ConstantLike": lambda n: (89, list(n._inputs), {"fillValue": float(n._attributes["value"])}),
    "Negate": _plain(0), "Sigmoid": _plain(75), "Tanh": _plain(2), "ReLU": _plain(3), "Exp": _plain(4),
    "Log": _plain(5), "Sqrt": _plain(6), "Floor": _plain(7), "Abs": _plain(8), "Reciprocal": _plain(9),
    "Softmax": _softmax, "Hardmax": _plain(11), "Transpose": _transpose, "Slice": _slice, "Dropout": _dropout,
    "Reshape": _reshape, "Pooling": _pooling, "Plus": _plain(19), "Minus": _plain(20), "ElementTimes": _plain(21),
    "Equal": _plain(22), "NotEqual": _plain(23), "Less": _plain(24), "LessEqual": _plain(25),
    "Greater": _plain(26), "GreaterEqual": _plain(27), "Times": _times, "TransposeTimes": _transpose_times,
    "Convolution": _convolution, "ConvolutionTranspose": lambda n: _convolution(n, transpose=True),
    "PastValue": _delay(37), "FutureValue": _delay(38), "BatchNormalization": _batch_normalization,
    "Clip": _plain(41), "Select": _plain(42), "Splice": _splice, "ReconcileDynamicAxis": _plain(50),
    "LogPlus": _plain(52), "Sin": _plain(54), "Cos": _plain(55), "Alias": _plain(62), "StopGradient": _plain(64),
    "ELU": _elu, "OneHot": _one_hot, "Pow": _plain(69), "Gather": _gather, "Sinh": _plain(77), "Cosh": _plain(78),
    "Asin": _plain(81), "Acos": _plain(82), "Atanh": _plain(85), "Asinh": _plain(86), "Squeeze": _squeeze,
    "Cast": _cast, "Tan": _plain(95), "Atan": _plain(96), "TopK": _top_k, "Argmax": _arg_reduce("Argmax"),
    "Argmin": _arg_reduce("Argmin"), "OptimizedRNNStack": _optimized_rnnstack,
    "RandomSample": _sampling(45), "RandomSampleInclusionFrequency": _sampling(46),
    "ToBatch": _plain(80), "UnpackBatch": _plain(79),
    "UnpackSequence": lambda n: (72, list(n._inputs), {
        "sequenceUnpackPaddingValue": float(n._attributes["padding_value"]),
        "sequenceUnpackSuppressMaskOutput": bool(n._attributes["no_mask_output"])}),
    "LabelsToGraph": _plain(63), "ForwardBackward": _forward_backward, "EditDistanceError": _edit_distance_error,
}
for _name in ("UniformRandom", "NormalRandom", "GumbelRandom", "BernoulliRandom"):
    ENCODERS[_name] = ENCODERS[_name + "Like"] = _random_distribution
for _name in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceLogSum"):
    ENCODERS[_name] = ENCODERS[_name + "OverSequences"] = _reduce


def _unpooling(node):
    a = node._attributes
    window = tuple(a["window"])
    attrs = {"poolingType": SizeT(0), "unpoolingWindowShape": _shape(window),
             "strides": _shape(_per_axis(a["strides"], len(window))),
             "autoPadding": _bools(_per_axis(a["auto_padding"], len(window)), len(window))}
    attrs.update(_geometry_attributes(a, len(window), "Unpooling"))
    return 58, list(node._inputs), attrs


ENCODERS["Unpooling"] = _unpooling
ENCODERS.update({"Assign": _plain(73), "LambdaRank": _plain(59), "NDCG1Eval": _plain(60), "Logistic": _plain(48),
                 "CosDistance": _plain(53), "ClassificationError": _plain(36),
                 "StraightThrough": _plain(94)})
ENCODERS["ROIPooling"] = lambda n: (47, list(n._inputs), {
    "poolingType": SizeT(0), "roiOutputShape": _shape(reversed(n._attributes["output_shape"])),
    "spatialScale": float(n._attributes["spatial_scale"])})


# ------------------------------------------------------------------------------------------- expansions
# op name -> (CNTK's block op name, build(inputs, attributes) -> Function over those inputs, from encodable ops)

def _C():
    import cntk_compat
    return cntk_compat


def _constant(value, like):
    dtype = np.dtype(like.dtype)
    return _C().Constant(np.asarray(value, dtype=dtype), dtype=dtype)


def _leaky(ins, a):
    C = _C()
    x = ins[0]
    return C.element_select(C.less(x, _constant(0, x)), C.element_times(_constant(a.get("alpha", 0.01), x), x), x)


def _selu(ins, a):
    C = _C()
    x = ins[0]
    neg = C.element_times(_constant(a["alpha"], x), C.elu(x))
    return C.element_times(_constant(a["scale"], x), C.element_select(C.less(x, _constant(0, x)), neg, x))


def _softplus(ins, a):
    C = _C()
    x = ins[0]
    k = a.get("steepness", 1.0)
    if k == 1.0:
        return C.log_add_exp(_constant(0, x), x)
    return C.element_times(_constant(1.0 / k, x), C.log_add_exp(_constant(0, x), C.element_times(_constant(k, x), x)))


def _positive(x):
    return _C().greater(x, _constant(0, x))


def _reduce_expansion(inner, outer=None):
    def build(ins, a):
        C = _C()
        axes = a.get("axes")
        if a.get("all_dynamic") and axes is None:  # Axis.all_axes(), as CNTK writes it
            y = C.reduce_sum(inner(ins[0]), axis=C.Axis.all_axes())
            return outer(y) if outer else y
        if a.get("batch") or a.get("all_dynamic"):
            raise NotExpressible("a reduction over the batch/dynamic axes")
        axis = None if axes is None else (axes[0] if len(axes) == 1 else tuple(axes))
        y = C.reduce_sum(inner(ins[0]), axis=axis, keepdims=bool(a.get("keepdims", True)))
        return outer(y) if outer else y
    return build


def _log_softmax(ins, a):
    C = _C()
    x = ins[0]
    axis = a.get("axis")
    return C.minus(x, C.reduce_log_sum_exp(x, axis=C.Axis.all_static_axes() if axis is None else axis))


def _expand_dims(ins, a):
    return _C().reshape(ins[0], a["output_shape"])


def _hard_sigmoid(ins, a):
    C = _C()
    x = ins[0]
    return C.clip(C.plus(C.element_times(_constant(a["alpha"], x), x), _constant(a["beta"], x)),
                  _constant(0, x), _constant(1, x))


def _prelu(ins, a):
    C = _C()
    alpha, x = ins
    return C.element_select(C.less(x, _constant(0, x)), C.element_times(alpha, x), x)


def _sequence_reduce(padding, reduce_name):
    def build(ins, a):
        C = _C()
        unpacked = C.sequence.unpack(ins[0], padding, no_mask_output=True)
        return getattr(C, reduce_name)(unpacked, axis=0, keepdims=False)
    return build


def _sequence_flag(delay_name):
    def build(ins, a):
        C = _C()
        x = ins[0]
        zeros = C.reconcile_dynamic_axes(_constant(0, x), x)
        return getattr(C.sequence, delay_name)(zeros, initial_state=_constant(1, x))
    return build


def _sequence_softmax(ins, a):
    """CNTK 2.7's Sequence::Softmax block: exp(x - max) over the sequence, divided by its sum."""
    C = _C()
    x = ins[0]
    e = C.exp(C.minus(x, C.sequence.broadcast_as(C.sequence.reduce_max(x), x)))
    return C.element_divide(e, C.sequence.broadcast_as(C.sequence.reduce_sum(e), e))


def _depth_to_space(ins, a):
    C = _C()
    x, b = ins[0], int(a["block_size"])
    c, h, w = x.shape
    y = C.transpose(C.reshape(x, (b, b, c // (b * b), h, w)), (2, 3, 0, 4, 1))
    return C.reshape(y, (c // (b * b), h * b, w * b))


def _space_to_depth(ins, a):
    C = _C()
    x, b = ins[0], int(a["block_size"])
    c, h, w = x.shape
    y = C.transpose(C.reshape(x, (c, h // b, b, w // b, b)), (2, 4, 0, 1, 3))
    return C.reshape(y, (c * b * b, h // b, w // b))


def _mean_variance_normalization(ins, a):
    """CNTK's MeanVarianceNormalization block: (x - mean) / (std + epsilon) over the sample (all axes, or all but
    the channel axis)."""
    C = _C()
    x = ins[0]
    rank = len(x.shape)
    axes = tuple(range(rank)) if a["use_stats_across_channels"] else tuple(range(1, rank))
    centered = C.minus(x, C.reduce_mean(x, axis=axes))
    if not a["do_variance_scaling"]:
        return centered
    std = C.sqrt(C.reduce_mean(C.element_times(centered, centered), axis=axes))
    return C.element_divide(centered, C.plus(std, _constant(a["epsilon"], x)))


def _local_response_normalization(ins, a):
    """CNTK's LocalResponseNormalization block: x / (bias + alpha / size * window sum of x^2 over channels) ^ beta,
    the window sum a convolution over the channel axis (taken as a spatial axis) with zero padding."""
    C = _C()
    x = ins[0]
    shape = tuple(x.shape)
    size = 2 * int(a["depth_radius"]) + 1
    if shape and size > shape[0]:
        # CNTK 2.7 clips such a window to the channel count at run time; its block's convolution cannot be
        # built here over fewer channels than the window
        raise NotExpressible("LocalResponseNormalization with a window of %d over %d channels" % (size, shape[0]))
    squares = C.reshape(C.element_times(x, x), (1,) + shape)
    dtype = np.dtype(x.dtype)
    kernel = C.Constant(np.full((1, 1, size) + (1,) * (len(shape) - 1), a["alpha"] / size, dtype), dtype=dtype)
    sums = C.reshape(C.convolution(kernel, squares, auto_padding=[False, True] + [False] * (len(shape) - 1)), shape)
    scale = C.exp(C.element_times(_constant(a["beta"], x), C.log(C.plus(_constant(a["bias"], x), sums))))
    return C.element_divide(x, scale)


EXPANSIONS = {
    "LocalResponseNormalization": ("LocalResponseNormalization", _local_response_normalization),
    "DepthToSpace": ("DepthToSpace", _depth_to_space), "SpaceToDepth": ("SpaceToDepth", _space_to_depth),
    "MeanVarianceNormalization": ("MeanVarianceNormalization", _mean_variance_normalization),
    "SequenceSoftmax": ("Sequence::Softmax", _sequence_softmax),
    "ElementAnd": ("And", lambda ins, a: _positive(_C().element_times(_positive(ins[0]), _positive(ins[1])))),
    "ElementOr": ("Or", lambda ins, a: _positive(_C().plus(_positive(ins[0]), _positive(ins[1])))),
    "ElementXor": ("Xor", lambda ins, a: _C().not_equal(_positive(ins[0]), _positive(ins[1]))),
    "ElementNot": ("Not", lambda ins, a: _C().less_equal(ins[0], _constant(0, ins[0]))),
    "HardSigmoid": ("HardSigmoid", _hard_sigmoid), "PReLU": ("PReLU", _prelu), "LogSoftmax": ("LogSoftmax", _log_softmax),
    "ReduceL1": ("ReduceL1", _reduce_expansion(lambda x: _C().abs(x))),
    "ReduceL1OverSequences": ("ReduceL1", _reduce_expansion(lambda x: _C().abs(x))),
    "ReduceL2OverSequences": ("ReduceL2", _reduce_expansion(lambda x: _C().element_times(x, x),
                                                            lambda y: _C().sqrt(y))),
    "ReduceSumSquareOverSequences": ("ReduceSumSquare", _reduce_expansion(lambda x: _C().element_times(x, x))),
    "ReduceL2": ("ReduceL2", _reduce_expansion(lambda x: _C().element_times(x, x), lambda y: _C().sqrt(y))),
    "ReduceSumSquare": ("ReduceSumSquare", _reduce_expansion(lambda x: _C().element_times(x, x))),
    "ElementDivide": ("ElementDivide", lambda ins, a: _C().element_times(ins[0], _C().reciprocal(ins[1]))),
    "Square": ("Square", lambda ins, a: _C().element_times(ins[0], ins[0])),
    "Round": ("Round", lambda ins, a: _C().floor(_C().plus(ins[0], _constant(0.5, ins[0])))),
    "Ceil": ("Ceil", lambda ins, a: _C().negate(_C().floor(_C().negate(ins[0])))),
    "ElementMax": ("ElementMax", lambda ins, a: _C().element_select(_C().greater(ins[0], ins[1]), ins[0], ins[1])),
    "ElementMin": ("ElementMin", lambda ins, a: _C().element_select(_C().less(ins[0], ins[1]), ins[0], ins[1])),
    "ExpandDims": ("ExpandDims", _expand_dims), "LeakyReLU": ("LeakyReLU", _leaky), "SELU": ("SELU", _selu), "Softplus": ("Softplus", _softplus),
    "SequenceReduceSum": ("Sequence::ReduceElements", _sequence_reduce(0.0, "reduce_sum")),
    "SequenceReduceMax": ("Sequence::ReduceElements", _sequence_reduce(-np.inf, "reduce_max")),
    "SequenceBroadcastAs": ("Sequence::BroadcastAs", lambda ins, a: _C().reconcile_dynamic_axes(ins[0], ins[1])),
    "SequenceIsFirst": ("Sequence::IsFirst", _sequence_flag("past_value")),
    "SequenceIsLast": ("Sequence::IsLast", _sequence_flag("future_value")),
    "Softsign": ("Softsign", lambda ins, a: _C().element_times(
        ins[0], _C().reciprocal(_C().plus(_constant(1, ins[0]), _C().abs(ins[0]))))),
}

# registered ops CNTK's format has no record for; a graph using one is saved in this package's archive format
_NOT_MAPPED = "no CNTK record is mapped for it yet"
NOT_EXPRESSIBLE = {}


# ops CNTK writes as Where -> PackedIndex -> GatherPacked/ScatterPacked chains inside a block (_Writer.chain)
CHAINS = {"SequenceGather": "Sequence::Gather", "SequenceScatter": "Sequence::Scatter",
          "SequenceFirst": "Sequence::Slice", "SequenceLast": "Sequence::Slice", "SequenceSlice": "Sequence::Slice",
          "Where": None, "ToSequenceOp": None, "ToSequenceLikeOp": None,
          # new_sequence_axis_typeinfo=(0, 1): CNTK 2.7 writes the same records with a Where whose new dynamic
          # axes are the batch axis only (factors 0 and 1), so the result has no sequence axis
          "WhereSingleStep": None, "SequenceGatherSingleStep": "Sequence::Gather"}

# the Where attributes of a result with one step per sequence and no sequence axis
_SINGLE_STEP = {"newSequenceAxisLengthScalingFactor": SizeT(0), "newSequenceAxisLengthAdditiveFactor": 1}


def encodable(op_name):
    return op_name in ENCODERS or op_name in EXPANSIONS or op_name in CHAINS or \
        op_name in ("Block", "Combine", "CosineDistanceWithNegativeSamples", "SequentialConvolution", "UserFunction")


def _custom_value(v, key):
    if hasattr(v, "_python_value"):  # a cntk_py.DictionaryValue
        v = v._python_value()
    if isinstance(v, (bool, str, float)) or v is None:
        return v
    if isinstance(v, (int, np.integer)):
        return SizeT(v) if v >= 0 else int(v)
    if isinstance(v, np.ndarray) and np.dtype(v.dtype) in CODE_OF_DTYPE:
        return v  # an NDArrayView
    if isinstance(v, (list, tuple)):
        return [_custom_value(x, key) for x in v]
    if isinstance(v, dict):
        return {str(k): _custom_value(x, key) for k, x in v.items()}
    raise NotExpressible("custom attribute %r of type %s" % (key, type(v).__name__))


# ------------------------------------------------------------------------------------------- the writer
class _Writer(object):
    def __init__(self):
        self.leaves = {}      # uid -> record (the model's "inputs")
        self.uid_of = {}      # id(Variable) -> uid in the file
        self.node_uids = {}   # id(node) -> uid in the file
        self.keep = []        # write-time expansions, kept alive while writing
        self.records = []     # every primitive function, blocks' bodies included, each after its inputs
        self.written = set()

    def fresh(self, prefix):
        """A uid for a record the writer adds itself, in CNTK's form (the kind, then a number): the number
        from the process-wide counter of uids, so that it is no uid of the graph's."""
        return new_uid(prefix)

    def variable_uid(self, v):
        if v.is_output:
            node = v.owner
            return "%s_Output_%d" % (self.node_uid(node), node._outputs.index(v))
        uid = self.uid_of.get(id(v))
        if uid is None:
            uid = self.uid_of[id(v)] = v.uid
            self.leaves[uid] = self.variable_record(v, uid)
        return uid

    def node_uid(self, node):
        uid = self.node_uids.get(id(node))
        if uid is None:
            uid = node.uid
            if _written_as_block(node):  # CNTK builds it as a block of primitives: its uid names a Block
                number = re.search(r"\d+$", uid)
                uid = "Block" + number.group() if number else self.fresh("Block")
            self.node_uids[id(node)] = uid
        return uid

    def variable_record(self, v, uid, kind=None):
        if not v.is_placeholder and (v._shape is None or v._dynamic_axes is None or v._dtype is None):
            raise NotExpressible("variable %s has an unknown shape or type" % (v.name or v.uid))
        # an unbound placeholder's unknown shape and axes as CNTK writes them (NDShape::Unknown(), UnknownAxes)
        # CNTK's own order, the batch axis last ("does not have the DefaultBatchAxis as its last dynamic axis",
        # says CNTK of an input that lists it first): input_variable(dynamic_axes=[batch, axis]) keeps the
        # Python order here
        axes = [StoredAxis(AXIS_UNKNOWN, "UnknownAxes", False)] if v._dynamic_axes is None else \
            [StoredAxis(AXIS_DYNAMIC, a.name, a.is_ordered)
             for a in sorted(v._dynamic_axes, key=lambda a: a.name == BATCH_AXIS_NAME)]
        data_type = 0 if v._dtype is None else CODE_OF_DTYPE[np.dtype(v._dtype)]  # 0: CNTK's DataType::Unknown
        record = {"version": SizeT(VARIABLE_VERSION), "type": "Variable", "uid": uid,
                  "kind": SizeT(_KIND[kind or v._kind]), "data_type": SizeT(data_type),
                  "dynamic_axis": axes,
                  "is_sparse": bool(v._is_sparse), "name": v.name, "needs_gradient": bool(v._needs_gradient),
                  "shape": Shape((-2,) if v._shape is None else v._shape)}
        if kind is None and (v.is_parameter or v.is_constant):
            record["value"] = _stored_value(v)
        return record

    def forward_reference(self, v):
        """An output read before its function is written (a loop): listed as a placeholder leaf with its uid."""
        uid = self.variable_uid(v)
        if uid not in self.leaves:
            record = self.variable_record(v, uid, kind="Placeholder")
            record["name"] = ""
            self.leaves[uid] = record
        return uid

    def composite(self, outputs, uid, name="", combine=None):
        """A composite's record; its functions go to the one flat list (CNTK lists a block's body functions
        among the model's, before the block, and the block's composite names only its root). ``combine``: the
        composite's own Combine root, if it has one (its uid is the record's), else one is written when the
        outputs are not those of one function."""
        written = self.written
        for node in primitive_nodes(outputs, into_blocks=False):
            if id(node) not in written:
                record = self.function(node, written)
                written.add(id(node))
                self.records.append(record)
        owners = {id(o.owner) for o in outputs if o.is_output}
        root = None
        if combine is None and len(owners) == 1 and outputs and all(o.is_output for o in outputs):
            node = outputs[0].owner
            if list(node._outputs) == list(outputs) and node._op.name != "Combine":
                root = self.node_uid(node)
        if root is None:
            root = self.node_uid(combine) if combine is not None else self.fresh("Combine")
            record = {"version": SizeT(PRIMITIVE_VERSION), "type": "PrimitiveFunction", "op": SizeT(44),
                      "uid": root, "inputs": [self.variable_uid(o) for o in outputs], "attributes": {}}
            if combine is not None and combine.name:
                record["name"] = combine.name
            self.records.append(record)
        record = {"version": SizeT(COMPOSITE_VERSION), "type": "CompositeFunction", "uid": uid, "root": root}
        if name:
            record["name"] = name
        return record

    def _input_uid(self, v, written):
        if v.is_output and id(v.owner) not in written:
            return self.forward_reference(v)
        return self.variable_uid(v)

    def function(self, node, written):
        record = self._function(node, written)
        if not record.get("name") and record["type"] == "PrimitiveFunction":
            record.pop("name", None)
        custom = node._custom_attributes
        if custom and "attributes" in record:
            record["attributes"]["customAttributes"] = {str(k): _custom_value(v, k) for k, v in custom.items()}
        return record

    def _function(self, node, written):
        op = node._op.name
        uid = self.node_uid(node)
        where = "%s%s" % (node.op_name, " '%s'" % node.name if node.name else "")
        if op == "Block":
            return self.block(node, uid, node.op_name, [(ph, outer) for ph, outer in node._block_arguments],
                              node._block_root._outputs, written, composite_uid=node._block_root.uid,
                              combine=_combine_root(node._block_root))
        if op == "Combine":
            return {"version": SizeT(PRIMITIVE_VERSION), "type": "PrimitiveFunction", "op": SizeT(44), "uid": uid,
                    "name": node.name, "inputs": [self._input_uid(i, written) for i in node._inputs],
                    "attributes": {}}
        if op == "CosineDistanceWithNegativeSamples":  # CNTK's record takes shift and count as scalar constants
            a = node._attributes
            ins = [self._input_uid(i, written) for i in node._inputs] + \
                [self.scalar(a["shift"], node._inputs[0]), self.scalar(a["num_negative"], node._inputs[0])]
            return {"version": SizeT(PRIMITIVE_VERSION), "type": "PrimitiveFunction", "op": SizeT(67), "uid": uid,
                    "name": node.name, "inputs": ins, "attributes": {}}
        if op == "UserFunction":
            return self.user_function(node, uid, written)
        if op == "SequentialConvolution":
            try:
                return self.sequential_convolution(node, uid, written)
            except NotExpressible as e:
                raise NotExpressible("%s: %s" % (where, e)) from None
        if op == "Softmax" and not _softmax_is_plain(node):
            # along one axis CNTK 2.7 writes a Softmax block of its own small graph
            return self.expansion(node, uid, written, ("Softmax", _softmax_along_axis))
        if op == "Gather" and _gather_block(node):
            return self.expansion(node, uid, written, ("GatherOp", _gather_along_axis))
        if op == "Convolution" and node._attributes.get("reduction_rank", 1) == 0:
            try:
                return self.convolution_without_channels(node, uid, written)
            except NotExpressible as e:
                raise NotExpressible("%s: %s" % (where, e)) from None
        if op in ENCODERS:
            try:
                code, inputs, attrs = ENCODERS[op](node)
            except NotExpressible as e:
                raise NotExpressible("%s: %s" % (where, e)) from None
            if code == 31 and int(attrs["outputRank"]) == 0 and inputs[0]._shape is not None:
                # CNTK 2.7 refuses a Times of output rank 0: the right operand gets an axis of 1 (Reshape), the
                # Times output rank 1, and a Reshape drops that axis again -- the same numbers
                w, x = inputs
                r = len(w._shape)
                if w._dynamic_axes:
                    # a right operand with dynamic axes (CNTK's Times takes none there): x's trailing axes are w's,
                    # and the product is the sum of the elementwise product over them (then a Reshape drops them)
                    xs = None if x._shape is None else tuple(x._shape)
                    if xs is None or r == 0 or xs[len(xs) - r:] != tuple(w._shape):
                        raise NotExpressible("%s: a Times of output rank 0 over an operand with dynamic axes" % where)
                    product = self.record(21, [self._input_uid(x, written), self._input_uid(w, written)])
                    summed = self.record(39, [product], {
                        "reductionOpName": "Sum", "reductionKeepDimensions": True,
                        "axisVec": [StoredAxis(k, "staticAxisIdx=%d" % k, True) for k in range(r)]})
                    return _primitive_record(16, uid, node.name, [summed],
                                             _reshape_attributes(node._outputs[0]._shape, len(xs)))
                w_uid = self.record(16, [self._input_uid(w, written)], _reshape_attributes(tuple(w._shape) + (1,), r))
                product = self.record(31, [w_uid, self._input_uid(x, written)], dict(attrs, outputRank=SizeT(1)))
                return _primitive_record(16, uid, node.name, [product], _reshape_attributes(
                    node._outputs[0]._shape, len(node._outputs[0]._shape) + 1))
            if code == 39 and attrs.get("reductionKeepDimensions") is False and "axisVec" in attrs and \
                    attrs["axisVec"][0].index not in (AXIS_ALL, AXIS_ALL_STATIC):
                # CNTK 2.7 computes ReduceElements over given axes with kept dimensions only; its Python API
                # drops them with a Reshape to the result's shape (a record reducing without them fails to run)
                attrs = dict(attrs, reductionKeepDimensions=True)
                kept = self.record(39, [self._input_uid(i, written) for i in inputs], attrs)
                return _primitive_record(16, uid, node.name, [kept],
                                         _reshape_attributes(node._outputs[0]._shape, _rank(inputs[0])))
            return {"version": SizeT(PRIMITIVE_VERSION), "type": "PrimitiveFunction", "op": SizeT(code), "uid": uid,
                    "name": node.name, "inputs": [self._input_uid(i, written) for i in inputs], "attributes": attrs}
        if op in EXPANSIONS:
            return self.expansion(node, uid, written)
        if op in CHAINS:
            try:
                return self.chain(node, uid, written)
            except NotExpressible as e:
                raise NotExpressible("%s: %s" % (where, e)) from None
        raise NotExpressible("%s: op %s has no record in CNTK's model format%s"
                             % (where, op, " (%s)" % NOT_EXPRESSIBLE[op] if op in NOT_EXPRESSIBLE else ""))

    def convolution_without_channels(self, node, uid, written):
        """convolution(..., reduction_rank=0) as CNTK 2.7's Convolution layer writes it: the operand reshaped with
        a channel axis of 1 in front, then a plain Convolution (the kernel reshaped to (O, 1, ...) where it has
        no such axis)."""
        a = node._attributes
        w, x = node._inputs
        if w._shape is None or x._shape is None or a.get("lower_pad") is not None or a.get("upper_pad") is not None:
            raise NotExpressible("Convolution with reduction_rank 0 over unknown shapes or with explicit pads")
        r = len(x._shape)

        def insert_one(v, k):
            return self.record(16, [self._input_uid(v, written)], {
                "newShape": Shape((1,)), "beginAxis": StoredAxis(k, "staticAxisIdx=%d" % k, True),
                "endAxis": StoredAxis(k, "staticAxisIdx=%d" % k, True)})
        x_uid = insert_one(x, r)
        kernel = tuple(w._shape[1:]) if len(w._shape) == r + 2 else (1,) + tuple(w._shape[1:])
        if len(kernel) != r + 1 or kernel[0] != 1:
            raise NotExpressible("Convolution with reduction_rank 0 and a kernel of shape %s" % (w._shape,))
        w_uid = self._input_uid(w, written) if len(w._shape) == r + 2 else insert_one(w, len(w._shape) - 1)
        attrs = {"strides": _shape((1,) + _per_axis(a["strides"], r)), "sharing": [True] * (r + 1),
                 "autoPadding": _bools((False,) + _per_axis(a["auto_padding"], r), r + 1),
                 "dilation": _shape((1,) + _per_axis(a["dilation"], r)), "transpose": False,
                 "maxTempMemSizeInSamples": SizeT(0), "kernelShape": _shape(kernel), "outputShape": Shape((0,)),
                 "groups": SizeT(a.get("groups", 1)), "sequential": False,
                 "lowerPad": Shape((0,)), "upperPad": Shape((0,))}
        return {"version": SizeT(PRIMITIVE_VERSION), "type": "PrimitiveFunction", "op": SizeT(33), "uid": uid,
                "name": node.name, "inputs": [w_uid, x_uid], "attributes": attrs}

    def user_function(self, node, uid, written):
        """A Python user function as CNTK 2.7 writes one: a UserDefinedFunction record (not native) holding its
        class's module and name, its op name and the dict its serialize() returned. Loading it needs that class
        (or a callback registered for the op name); nothing in the file is run."""
        cls = type(node)
        where = "the serialize() state of user function %s" % node.op_name
        state = node.serialize()
        if not isinstance(state, dict):
            raise NotExpressible("%s is a %s, not a dict" % (where, type(state).__name__))
        return {"version": SizeT(0), "type": "UserDefinedFunction", "uid": uid, "name": node.name, "native": False,
                "inputs": [self._input_uid(i, written) for i in node._inputs],
                "user_defined_state": {"class": cls.__qualname__, "module": cls.__module__, "op_name": node.op_name,
                                       "state": _udf_value(state, where), "version": 1}}

    def expansion(self, node, uid, written, entry=None):
        C = _C()
        block_name, build = entry or EXPANSIONS[node._op.name]
        placeholders = []
        for i in node._inputs:
            p = C.placeholder(shape=i._shape, dynamic_axes=i._dynamic_axes, name="")
            p._dtype, p._is_sparse = i._dtype, i._is_sparse
            placeholders.append(p)
        # expansions see the node's attributes and its output's shape
        body = build(placeholders, dict(node._attributes, output_shape=node._outputs[0]._shape))
        self.keep.append(body)
        return self.block(node, uid, block_name, list(zip(placeholders, node._inputs)), body.outputs, written,
                          attributes={})

    # --------------------------------------------------------------------------- records CNTK writes by hand
    def record(self, code, inputs, attributes=None, uid=None, name=None):
        """Appends a primitive function's record; the uid of its first output."""
        uid = uid or self.fresh(_UID_PREFIX.get(code) or OP_NAMES[code])
        self.records.append(_primitive_record(code, uid, name or None, inputs, attributes or {}))
        return uid + "_Output_0"

    def scalar(self, value, like):
        c = _C().Constant(np.asarray(value, dtype=np.dtype(like._dtype)))
        self.keep.append(c)
        return self.variable_uid(c)

    def placeholder_for(self, v):
        p = _C().placeholder(shape=v._shape, dynamic_axes=v._dynamic_axes, name="")
        p._dtype, p._is_sparse = v._dtype, v._is_sparse
        self.keep.append(p)
        return p

    def sequential_convolution(self, node, uid, written):
        """convolution(..., sequential=True) as CNTK 2.7 writes it: the operand unpacked, its sequence axis moved
        after the channel axis, a plain Convolution, moved back and made a sequence again with the lengths a
        ConvolutionSequenceShape record computes (behind a StopGradient)."""
        a = node._attributes
        w, x = node._inputs
        r = _rank(x)
        if len(w._shape) != r + 2 or a.get("groups", 1) != 1:
            raise NotExpressible("a sequential convolution with map axes before the channel axis or groups")
        # per axis of the unpacked, transposed operand (channel, sequence, *spatial): the channel axis is not padded
        attrs = {"strides": _shape((1,) + tuple(a["strides"])), "sharing": [True] * (r + 1),
                 "autoPadding": _bools((False,) + tuple(a["auto_padding"]), r + 1),
                 "dilation": _shape((1,) + tuple(a["dilation"])), "transpose": False,
                 "maxTempMemSizeInSamples": SizeT(0), "kernelShape": _shape(w._shape[1:]),
                 "outputShape": Shape((0,)), "lowerPad": Shape((0,) * (r + 1)), "upperPad": Shape((0,) * (r + 1)),
                 "groups": SizeT(1)}
        kernel, operand = self._input_uid(w, written), self._input_uid(x, written)
        swap = {"axis1": StoredAxis(r, "staticAxisIdx=%d" % r, True),
                "axis2": StoredAxis(r - 1, "staticAxisIdx=%d" % (r - 1), True)}
        name = node.name
        lengths = self.record(97, [kernel, operand], dict(attrs, sequential=True),
                              name=name + "_sequence_shape" if name else None)
        lengths = self.record(64, [lengths])
        unpacked = self.record(72, [operand], {"sequenceUnpackPaddingValue": 0.0,
                                               "sequenceUnpackSuppressMaskOutput": True})
        moved = self.record(12, [unpacked], dict(swap))
        convolved = self.record(33, [kernel, moved], dict(attrs, sequential=False), name=name or None)
        back = self.record(12, [convolved], dict(swap))
        batch = [StoredAxis(AXIS_DYNAMIC, ax.name, ax.is_ordered) for ax in node._outputs[0]._dynamic_axes
                 if not ax.is_ordered]
        prefix = "ConvOverSequenceAxisPrefix"
        return {"version": SizeT(PRIMITIVE_VERSION), "type": "PrimitiveFunction", "op": SizeT(70), "uid": uid,
                "attributes": {"sequenceAxis": prefix,
                               "newDynamicAxes": [StoredAxis(AXIS_DYNAMIC, prefix + back, True)] + batch},
                "inputs": [back, lengths]}

    def is_within(self, ph, offset):
        """CNTK's Internal::IsWithin: 1 at the first (offset > 0) or last (offset < 0) |offset| steps, else 0."""
        zeros = self.record(50, [self.scalar(0, ph), self.variable_uid(ph)])
        return self.record(37 if offset > 0 else 38, [zeros, self.scalar(1, ph)], {"offset": SizeT(abs(offset))})

    def chain(self, node, uid, written):
        """Sequence ops as CNTK 2.7 writes them: a block (Sequence::Gather, Sequence::Scatter, Sequence::Slice)
        whose body is a Where -> PackedIndex -> GatherPacked / ScatterPacked chain; Where, ToSequence and
        ToSequenceLike as their own records."""
        op = node._op.name
        ins = list(node._inputs)
        batch = [StoredAxis(AXIS_DYNAMIC, a.name, a.is_ordered) for a in node._outputs[0]._dynamic_axes
                 if not a.is_ordered]
        if op in ("Where", "ToSequenceOp"):
            new = node._attributes["new_axis"]
            attrs = {"newDynamicAxes": [StoredAxis(AXIS_DYNAMIC, new.name, True)] + batch}
            if op == "Where":
                attrs.update(_typeinfo(new))
                code = 13
            else:
                code = 70
                prefix = new.name[:-len(ins[-1].uid)] if new.name.endswith(ins[-1].uid) else new.name
                attrs["sequenceAxis"] = prefix
            return {"version": SizeT(PRIMITIVE_VERSION), "type": "PrimitiveFunction", "op": SizeT(code),
                    "uid": uid, "name": node.name, "attributes": attrs,
                    "inputs": [self._input_uid(i, written) for i in ins]}
        if op == "WhereSingleStep":
            return {"version": SizeT(PRIMITIVE_VERSION), "type": "PrimitiveFunction", "op": SizeT(13),
                    "uid": uid, "name": node.name, "attributes": dict(_SINGLE_STEP, newDynamicAxes=batch),
                    "inputs": [self._input_uid(i, written) for i in ins]}
        if op == "ToSequenceLikeOp":
            return {"version": SizeT(PRIMITIVE_VERSION), "type": "PrimitiveFunction", "op": SizeT(71),
                    "uid": uid, "name": node.name, "attributes": {},
                    "inputs": [self._input_uid(i, written) for i in ins]}
        placeholders = [self.placeholder_for(v) for v in ins]
        uids = [self.variable_uid(p) for p in placeholders]
        start = len(self.records)
        x = placeholders[0]
        if op in ("SequenceGather", "SequenceGatherSingleStep", "SequenceScatter"):
            cond = ins[1]
            if op == "SequenceGatherSingleStep":
                where = self.record(13, [uids[1]], dict(_SINGLE_STEP, newDynamicAxes=batch))
                index = self.record(28, [uids[0], where])
                root = self.record(29, [uids[0], index])
            elif op == "SequenceGather":
                new = node._attributes["new_axis"]
                attrs = {"newDynamicAxes": [StoredAxis(AXIS_DYNAMIC, new.name, True)] + batch}
                attrs.update(_typeinfo(new))
                where = self.record(13, [uids[1]], attrs)
                index = self.record(28, [uids[0], where])
                root = self.record(29, [uids[0], index])
            else:
                axis = "whereNodeDynamicAxis_conditionVar_%s" % self.variable_uid(cond)
                where = self.record(13, [uids[1]], {"newDynamicAxes": [StoredAxis(AXIS_DYNAMIC, axis, True)] +
                                                    batch})
                index = self.record(28, [uids[1], where])
                root = self.record(30, [uids[0], index, uids[1]])
        else:
            if op == "SequenceFirst":
                begin, end = 0, 1
            elif op == "SequenceLast":
                begin, end = -1, 0
            else:
                begin, end = node._attributes["begin_index"], node._attributes["end_index"]
            if begin == 0 and end == 0:
                raise NotExpressible("a slice of whole sequences")
            # CNTK's Sequence::Slice: flags of the steps from begin (and before end), then a gather
            begin_flags = end_flags = None
            if begin != 0:
                within = self.is_within(x, begin)
                begin_flags = self.record(20, [self.scalar(1, x), within]) if begin > 0 else within
            if end != 0:
                within = self.is_within(x, end)
                end_flags = within if end > 0 else self.record(20, [self.scalar(1, x), within])
            flags = begin_flags if end_flags is None else end_flags if begin_flags is None else \
                self.record(21, [begin_flags, end_flags])
            length = end - begin
            factor = 0 if length > 0 else 1
            if op == "SequenceSlice":
                seq = x._sequence_axis.name
                new = [StoredAxis(AXIS_DYNAMIC, "%s_times_%d_%s_%d" % (seq, factor, "minus" if length < 0 else
                                                                      "plus", abs(length)), True)]
            else:
                new = []  # first/last: one element per sequence, the result has the batch axis only
            where = self.record(13, [flags], {"newSequenceAxisLengthScalingFactor": SizeT(factor),
                                              "newSequenceAxisLengthAdditiveFactor": int(length),
                                              "newDynamicAxes": new + batch})
            index = self.record(28, [uids[0], where])
            root = self.record(29, [uids[0], index])
        captured = []
        for rec in self.records[start:]:
            for u in rec["inputs"]:
                if u in self.leaves and int(self.leaves[u]["kind"]) == _KIND["Constant"] and u not in captured:
                    captured.append(u)
        outer = [self._input_uid(i, written) for i in ins]
        body = {"version": SizeT(COMPOSITE_VERSION), "type": "CompositeFunction", "uid": self.fresh("CompositeFunction"),
                "root": root[:-len("_Output_0")]}
        return {"version": SizeT(PRIMITIVE_VERSION), "type": "PrimitiveFunction", "op": SizeT(57), "uid": uid,
                "name": node.name, "attributes": {}, "inputs": captured + outer,
                "block_function_op_name": CHAINS[op], "block_function_composite": body,
                "block_function_composite_arguments_map_keys": uids,
                "block_function_composite_arguments_map_values": outer}

    def block(self, node, uid, op_name, arguments, inner_outputs, written, attributes=None, composite_uid=None,
              combine=None):
        """A block's record; its composite has the uid ``composite_uid`` (the uid of the block's own composite,
        as CNTK writes it; ``combine``: that composite's Combine root) or, for a body the writer built, a fresh
        one."""
        for ph, _ in arguments:
            self.variable_uid(ph)
        body = self.composite(list(inner_outputs), composite_uid or self.fresh("CompositeFunction"), combine=combine)
        mapped = {id(ph) for ph, _ in arguments}
        captured = []  # as CNTK lists them: the leaves the body captures (parameters, constants), then arguments
        for inner in primitive_nodes(list(inner_outputs), into_blocks=True):
            for i in inner._inputs:
                if not i.is_output and id(i) not in mapped and i not in captured:
                    captured.append(i)
        # a block's outputs are its own: the output uids "<block uid>_Output_i"
        return {"version": SizeT(PRIMITIVE_VERSION), "type": "PrimitiveFunction", "op": SizeT(57), "uid": uid,
                "name": node.name, "attributes": attributes or {},
                "inputs": [self.variable_uid(c) for c in captured] +
                          [self._input_uid(outer, written) for _, outer in arguments],
                "block_function_op_name": op_name, "block_function_composite": body,
                "block_function_composite_arguments_map_keys": [self.variable_uid(ph) for ph, _ in arguments],
                "block_function_composite_arguments_map_values": [self._input_uid(o, written) for _, o in arguments]}


# uids of the records the writer adds itself are the op's name (OP_NAMES) and a number, as in CNTK's files, except
# where CNTK's uid differs from that name
_UID_PREFIX = {72: "UnpackSequenceOp"}


def _udf_value(v, where):
    """A value of a user function's serialize() state as CNTK's Python layer stores it (ints as signed ints,
    floats as doubles, tuples as lists, arrays as NDArrayViews); what CNTK cannot store is NotExpressible."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v)
    if isinstance(v, str):
        return v
    if isinstance(v, (list, tuple)):
        return [_udf_value(x, where) for x in v]
    if isinstance(v, dict):
        if not all(isinstance(k, str) for k in v):
            raise NotExpressible("%s has a key that is not a string" % where)
        return {k: _udf_value(x, where) for k, x in v.items()}
    if isinstance(v, np.ndarray) and v.dtype in (np.float32, np.float64):
        return v
    raise NotExpressible("%s holds a %s, which CNTK's format cannot store" % (where, type(v).__name__))


def _typeinfo(axis):
    """The (scaling, additive) factors a where/gather axis was made with (its name says them), as attributes."""
    m = re.search(r"_times_(-?\d+)_plus_(-?\d+)$", axis.name)
    if m is None:
        if "_times_" in axis.name:
            raise NotExpressible("a new sequence axis with factors %s (CNTK stores integers)" % axis.name)
        return {}
    return {"newSequenceAxisLengthScalingFactor": SizeT(int(m.group(1))),
            "newSequenceAxisLengthAdditiveFactor": int(m.group(2))}


def _written_as_block(node):
    """Whether the writer writes a node of ours that is no Block as one (an expansion or a chain)."""
    op = node._op.name
    return op in EXPANSIONS or CHAINS.get(op) is not None or (op == "Gather" and _gather_block(node))


def _combine_root(composite):
    root = composite.root_function
    return root if root._op.name == "Combine" else None


def _in_argument_order(function):
    """``function``, or where its arguments' order (a @Function's parameter order) is not the order a walk of its
    graph meets them in, the function over a 'Tuple' block of its arguments: what CNTK 2.7's @Function builds in
    that case (a block combining placeholders for the arguments, in order), so that the file's graph lists the
    arguments in that order wherever it is loaded."""
    arguments = list(function.arguments)
    if not function._arg_order or len(arguments) < 2 or arguments == list(function._argument_leaves()):
        return function
    C = _C()
    inner = [C.placeholder(name=a.name) for a in arguments]
    ordered = C.as_block(C.combine(inner), list(zip(inner, arguments)), "Tuple")
    return function.clone(C.CloneMethod.share, dict(zip(arguments, ordered.outputs)))


def model_dictionary(function):
    """The CNTK v2 Dictionary (as Python values) of ``function``; NotExpressible names what cannot be written."""
    uid, name = function.uid, function.name
    function = _in_argument_order(function)
    writer = _Writer()
    top = writer.composite(list(function.outputs), uid, name, _combine_root(function))
    top["inputs"] = list(writer.leaves.values())
    top["primitive_functions"] = writer.records
    return top


def model_parts(function):
    """The CNTK v2 file of ``function`` as bytes-like parts to write in order (cntkv2_wire: the tensors' values are
    views of the parameters' own memory; the layout over 2 GB when the model needs it)."""
    return dictionary_parts(model_dictionary(function))


def model_bytes(function):
    return b"".join(model_parts(function))


def _stored_value(v):
    """The value of a Parameter or Constant as a numpy array, without a copy where its tensor is on the CPU."""
    return v.tensor.detach().cpu().numpy()
