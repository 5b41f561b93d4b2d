"""Reading CNTK's legacy v1 model format (CNTK 1.x / BrainScript ``ComputationNetwork`` files) into a graph.

Layout: "BCN", "BVersion" model version "EVersion", the node count, "BNodeList" then per node its precision
("float"/"double", from version 7), operation name, node name and the operation's own fields (see NODE_FIELDS),
"ENodeList"; "BRelation" then per node its name and its inputs' names, "ERelation"; "BRootNodes" with the named
groups (features, labels, criteria, evaluation, outputs), "ERootNodes"; "ECN". An operation has no length prefix,
so a node type whose fields are not known here stops the reading with an error naming it and its offset.

Each node becomes this package's op through the same builders as CNTK's v2 format (the v1 operation names map to
v2 op codes); the model's outputs are its criterion, evaluation and output nodes, sorted by name as CNTK 2.7 lists
them. Nothing from the file is executed.
"""
import numpy as np

from ..core.function import Function
from ..core.reinference import infer_in_place, substitute_in_place
from ..core.variables import Constant, Parameter, new_placeholder
from .cntkv1_stream import Stream, V1FormatError
from .cntkv2_ops import BUILDERS, OP_NAMES
from .cntkv2_values import Shape, StoredAxis

_MARK = "BCN".encode("utf-16-le")
NEWEST_VERSION = 30  # CNTK 2.7 writes v1 files of this version


_LEAVES = ("LearnableParameter", "InputValue", "SparseInputValue")


def looks_like_cntkv1(data):
    return data[:len(_MARK) + 2] == _MARK + b"\x00\x00"


# ------------------------------------------------------------------------------------------- node fields
# reader(stream, version, precision) -> dict of the operation's fields, in the order CNTK's Load reads them

def _none(s, v, p):
    return {}


def _times(s, v, p):
    f = {"outputRank": s.size_t() if v >= 3 else 1}
    if v >= 12:
        f["inferInputRankToMap"] = s.int32()
    return f


def _learnable(s, v, p):
    if v >= 3:
        f = {"lrm": s.float32(), "shape": s.shape()}
    else:
        f = {"lrm": float(s.boolean())}
        rows, cols = s.size_t(), s.size_t()
        if rows:
            f["shape"] = (rows, cols)
        else:
            shape = s.shape(accept_legacy=True)
            f["shape"] = shape + ((cols,) if cols > 1 else ())
    f["value"] = s.matrix(np.float32 if p == "float" else np.float64)
    return f


def _input(s, v, p):
    rows = s.size_t()
    s.size_t()  # columns, unused
    shape = s.shape(accept_legacy=True)
    if rows and rows != int(np.prod(shape)):
        shape = (rows,)
    f = {"shape": shape, "axis": ""}
    if v >= 8:
        axes = s.uint32()
        if axes == 1:
            f["axis"] = s.wstring()
        elif axes > 1:
            s.fail("an input with %d dynamic axes (CNTK reads one)" % axes)
    if v >= 10:
        s.float32()  # learning-rate multiplier of the input
    return f


def _delay(s, v, p):
    f = {"timeStep": s.int32()}
    if v > 3:
        f["shape"] = s.shape()
    else:
        f["shape"] = (s.size_t(),)
        s.size_t()
    if v >= 2:
        f["initial"] = s.float32() if p == "float" else s.float64()
    return f


def _batch_norm(s, v, p):
    if v < 6:
        s.fail("a BatchNormalization node of model version %d (before version 6) is not read" % v)
    f = {"spatial": s.boolean(), "normTimeConst": s.float64(), "blendTimeConst": s.float64(),
         "imageLayout": s.int32()}
    if v >= 19:
        s.boolean()  # whether the running count is zero; the count itself is an input
        f["samplesSeen"] = None
    elif v >= 13:
        f["samplesSeen"] = s.size_t()
    else:
        f["samplesSeen"] = 16 * s.size_t()  # a minibatch count, as CNTK converts it
    f["epsilon"], f["useCntkEngine"] = s.float64(), s.boolean()
    return f


def _convolution_base(s, v, p):
    if v < 5:
        s.fail("a convolution/pooling node of model version %d (before ND convolution, version 5) is not read" % v)
    f = {"kernel": s.shape(), "mapCount": s.shape(), "stride": s.shape(), "sharing": s.bools(),
         "autoPad": s.bools(), "lowerPad": s.shape(), "upperPad": s.shape(), "poolKind": s.int32(),
         "imageLayout": s.int32(), "maxTempMem": s.size_t()}
    f["transpose"] = s.boolean() if v >= 9 else False
    f["outputShape"] = s.shape() if v >= 20 else ()
    f["ceilOutDim"] = s.boolean() if v >= 21 else False
    f["includePad"] = s.boolean() if v >= 23 else False
    return f


def _convolution(s, v, p):
    f = _convolution_base(s, v, p)
    f["convolution2D"] = s.boolean()
    f["dilation"] = s.shape() if v >= 18 else (1,)
    return f


def _slice(s, v, p):
    if v >= 22:
        s.fail("a Slice node of model version %d (multi-axis slices) is not read" % v)
    begin, rows = s.size_t(), s.size_t()
    return {"begin": begin, "end": begin + rows, "axis": s.int32() if v >= 3 else 1}


NODE_FIELDS = {
    "LearnableParameter": _learnable, "InputValue": _input, "SparseInputValue": _input,
    "Times": _times, "TransposeTimes": _times, "PastValue": _delay, "FutureValue": _delay,
    "BatchNormalization": _batch_norm, "Convolution": _convolution, "Pooling": _convolution_base, "Slice": _slice,
}
# operations whose nodes store no fields of their own, and the v2 op code each becomes
_PLAIN = {"Negate": 0, "Sigmoid": 1, "Tanh": 2, "RectifiedLinear": 3, "Exp": 4, "Log": 5, "Sqrt": 6, "Floor": 7,
          "Abs": 8, "Reciprocal": 9, "Softmax": 10, "Hardmax": 11, "Plus": 19, "Minus": 20, "ElementTimes": 21,
          "Equal": 22, "NotEqual": 23, "Less": 24, "LessEqual": 25, "Greater": 26, "GreaterEqual": 27,
          "SquareError": 34, "CrossEntropyWithSoftmax": 35, "ClassificationError": 36, "Clip": 41, "If": 42,
          "Logistic": 48, "LogSoftmax": 51, "LogPlus": 52, "CosDistance": 53, "Sin": 54, "Cos": 55, "Pass": 56,
          "StableSigmoid": 75, "ELU": 65}
for _op in _PLAIN:
    NODE_FIELDS[_op] = _none


# ------------------------------------------------------------------------------------------- reading
class _Node(object):
    __slots__ = ("op", "name", "precision", "fields", "inputs", "offset")

    def __init__(self, op, name, precision, fields, offset):
        self.op, self.name, self.precision, self.fields, self.offset = op, name, precision, fields, offset
        self.inputs = []


def read_network(data, what):
    """(version, {name: _Node}, {group: [names]}) of a v1 model."""
    s = Stream(data, what)
    s.marker("BCN")
    version = 1
    if s.try_marker("BVersion"):
        version = s.size_t()
        s.marker("EVersion")
    if version > NEWEST_VERSION:
        s.fail("model version %d is newer than the v1 format this reader knows (%d)" % (version, NEWEST_VERSION))
    count = s.size_t()
    s.marker("BNodeList")
    nodes = {}
    for _ in range(count):
        at = s.pos
        precision = s.wstring() if version >= 7 else "float"
        op, name = s.wstring(), s.wstring()
        if precision not in ("float", "double"):
            s.fail("unexpected precision tag %r of node %r" % (precision, name), at)
        reader = NODE_FIELDS.get(op)
        s.context = ", node %r (%s, starting at byte %d)" % (name, op, at)
        if reader is None:
            s.fail("operation %s is not supported by cntk-compat's v1 reader" % op)
        nodes[name] = _Node(op, name, precision, reader(s, version, precision), at)
        s.context = ""
    s.marker("ENodeList")
    s.marker("BRelation")
    for _ in range(count):
        name, n = s.wstring(), s.size_t()
        if name not in nodes:
            s.fail("the relation of an unknown node %r" % name)
        nodes[name].inputs = [s.wstring() for _ in range(n)]
        for i in nodes[name].inputs:
            if i not in nodes:
                s.fail("node %r reads %r, which the file does not define" % (name, i))
    s.marker("ERelation")
    s.marker("BRootNodes")
    groups = {}
    for group, legacy in (("Feature", None), ("Label", None), ("Criterion", "Criteria"),
                          ("NodesReqMultiSeqHandling", None), ("Eval", None), ("Output", None), ("Pair", None)):
        begin = next((g for g in (group, legacy) if g and s.try_marker("B%sNodes" % g)), None)
        if begin is None:
            continue
        names = [s.wstring() for _ in range(s.size_t())]
        groups[group] = names
        if not s.try_marker("E%sNodes" % begin):
            s.marker("E%sNodes" % group)
    s.marker("ERootNodes")
    s.marker("ECN")
    return version, nodes, groups


# ------------------------------------------------------------------------------------------- building
def _rev(dims):
    return Shape(reversed(tuple(dims)))


class _Builder(object):
    def __init__(self, nodes, version, what, device):
        self.nodes, self.version, self.what, self.device = nodes, version, what, device
        self.env = {}
        self.stand_ins = {}  # node name -> placeholder read by a delay before that node is built
        self.kernel_of = {}  # LearnableParameter name -> the convolution kernel shape (C++ order) it holds
        for node in nodes.values():
            if node.op == "Convolution" and node.inputs:
                f = node.fields
                self.kernel_of[node.inputs[0]] = tuple(f["kernel"]) + tuple(f["mapCount"])

    def fail(self, node, message):
        raise ValueError("load_model: %s (CNTK v1 model), node %r (%s, at byte %d): %s"
                         % (self.what, node.name, node.op, node.offset, message))

    def variable(self, name):
        v = self.env.get(name)
        if v is None:
            node = self.nodes[name]
            if name in self.building:  # a loop: a delay reads what is being built
                v = self.stand_ins.setdefault(name, new_placeholder(name=""))
                return v
            self.building.add(name)
            v = self.env[name] = self.build(node)
            self.building.discard(name)
            stand_in = self.stand_ins.pop(name, None)
            if stand_in is not None:
                self.closed[stand_in] = v
        return v

    def build_all(self, names):
        self.building, self.closed = set(), {}
        outputs = [self.variable(n) for n in names]
        if self.closed:
            substitute_in_place(outputs, self.closed)
            infer_in_place(outputs)
        return outputs

    def build(self, node):
        f = node.fields
        dtype = np.float32 if node.precision == "float" else np.float64
        if node.op == "LearnableParameter":
            return self._parameter(node, dtype)
        if node.op in ("InputValue", "SparseInputValue"):
            from ..core.axis import Axis
            from ..core.variables import input_variable
            axis = Axis(f["axis"]) if f["axis"] else Axis.default_dynamic_axis()
            return input_variable(tuple(reversed(f["shape"])), dtype, is_sparse=node.op == "SparseInputValue",
                                  dynamic_axes=[Axis.default_batch_axis(), axis], name=node.name)
        inputs = [self.variable(i) for i in node.inputs]
        code, attrs = self._v2_record(node, inputs, dtype)
        try:
            out = BUILDERS[code](inputs, attrs, node.name)
        except V1FormatError:
            raise
        except Exception as e:
            self.fail(node, "%s: %s" % (type(e).__name__, e))
        return out.output

    def _parameter(self, node, dtype):
        f = node.fields
        value = f["value"]
        cpp = tuple(f["shape"])
        if int(np.prod(cpp)) != value.size:
            self.fail(node, "shape %s holds %d values, the stored matrix %d" % (cpp, int(np.prod(cpp)), value.size))
        kernel = self.kernel_of.get(node.name)
        if kernel is not None and len(cpp) == 2 and cpp != kernel:
            # a legacy [maps x kernel elements] matrix: each row is one output map's kernel
            value = np.ascontiguousarray(value.T).reshape(tuple(reversed(kernel)))
        else:
            value = value.reshape(tuple(reversed(cpp)))
        if f["lrm"] == 0:
            return Constant(value, dtype=dtype, name=node.name)
        return Parameter(value.shape, value, dtype=dtype, device=self.device, name=node.name)

    def _v2_record(self, node, inputs, dtype):
        """The v2 op code and attributes of a v1 node."""
        f, op = node.fields, node.op
        if op in _PLAIN:
            return _PLAIN[op], {}
        if op in ("Times", "TransposeTimes"):
            attrs = {"outputRank": f["outputRank"]}
            if "inferInputRankToMap" in f:
                attrs["inferInputRankToMap"] = f["inferInputRankToMap"]
            return (31 if op == "Times" else 32), attrs
        if op in ("PastValue", "FutureValue"):
            if len(inputs) == 1:
                init = Constant(np.asarray(f.get("initial", 0.0), dtype=dtype), name="")
                inputs.append(init)
            return (37 if op == "PastValue" else 38), {"offset": f["timeStep"]}
        if op == "BatchNormalization":
            if len(inputs) == 5:
                count = f["samplesSeen"] or 0
                inputs.append(Constant(np.asarray(count, dtype=dtype), name=""))
            return 40, {"spatial": f["spatial"], "normalizationTimeConstant": f["normTimeConst"],
                        "blendTimeConstant": f["blendTimeConst"], "epsilon": f["epsilon"],
                        "useCuDNNEngine": not f["useCntkEngine"]}
        if op == "Slice":
            return 14, {"axis": StoredAxis(f["axis"] - 1, "", True), "beginIndex": f["begin"],
                        "endIndex": f["end"]}
        if op in ("Convolution", "Pooling"):
            common = {"strides": _rev(f["stride"]), "autoPadding": list(f["autoPad"]),
                      "lowerPad": _rev(f["lowerPad"]), "upperPad": _rev(f["upperPad"])}
            if op == "Pooling":
                if f["poolKind"] not in (1, 2):
                    self.fail(node, "pooling kind %d (expected 1 max or 2 average)" % f["poolKind"])
                common.update({"poolingType": 0 if f["poolKind"] == 1 else 1,
                               "poolingWindowShape": _rev(f["kernel"]), "ceilOutDim": f["ceilOutDim"],
                               "includePad": f["includePad"]})
                return 17, common
            common.update({"sharing": list(f["sharing"]), "dilation": _rev(f["dilation"]),
                           "transpose": f["transpose"], "outputShape": _rev(f["outputShape"] or (0,)),
                           "maxTempMemSizeInSamples": f["maxTempMem"]})
            return 33, common
        self.fail(node, "no v2 mapping for %s (op code %s)" % (op, OP_NAMES.get(op)))


def load(data, what, udf_callbacks, device=None):
    """The Function of the v1 model ``data``: its criterion, evaluation and output nodes and every other node no
    node reads, sorted by name as CNTK 2.7 lists them."""
    version, nodes, groups = read_network(data, what)
    read = {i for node in nodes.values() for i in node.inputs}
    named = groups.get("Criterion", []) + groups.get("Eval", []) + groups.get("Output", [])
    roots = sorted({n for n, node in nodes.items() if n not in read and node.op not in _LEAVES} | set(named))
    if not roots:
        raise ValueError("load_model: %s (CNTK v1 model) has no node computing anything" % what)
    builder = _Builder(nodes, version, what, device)
    outputs = builder.build_all(roots)
    features = []
    for n in groups.get("Feature", []) + groups.get("Label", []):
        if n in builder.env and builder.env[n] not in features:
            features.append(builder.env[n])
    return Function._composite(outputs, arg_order=features or None)
