"""Writing CNTK's legacy v1 model format (save_as_legacy_model): the layout cntkv1_reader reads, model version 20.

Blocks are written flattened (v1 networks have no blocks); each primitive node becomes one v1 node named after
the node (its uid where the name is empty or taken). Parameters are LearnableParameters, constants
LearnableParameters with learning-rate multiplier 0, inputs InputValues (v1 inputs always have a sequence axis).
Only ops with a v1 node type here are written (V1_NODES); anything else raises NotExpressible naming it.
"""
import struct

import numpy as np

from .cntkv2_writer import NotExpressible

VERSION = 20

# this package's op -> the v1 operation (same inputs, no fields of its own)
_PLAIN = {"Negate": "Negate", "Sigmoid": "Sigmoid", "Tanh": "Tanh", "ReLU": "RectifiedLinear", "Exp": "Exp",
          "Log": "Log", "Sqrt": "Sqrt", "Floor": "Floor", "Abs": "Abs", "Reciprocal": "Reciprocal",
          "Hardmax": "Hardmax", "Plus": "Plus", "Minus": "Minus", "ElementTimes": "ElementTimes", "Equal": "Equal",
          "NotEqual": "NotEqual", "Less": "Less", "LessEqual": "LessEqual", "Greater": "Greater",
          "GreaterEqual": "GreaterEqual", "Clip": "Clip", "Select": "If", "LogPlus": "LogPlus", "Sin": "Sin",
          "Cos": "Cos", "Alias": "Pass", "ELU": "ELU"}
V1_NODES = sorted(set(_PLAIN) | {"Softmax", "Times", "PastValue", "FutureValue", "Slice"})


class _Out(object):
    def __init__(self):
        self.parts = []

    def raw(self, b):
        self.parts.append(b)

    def wstring(self, s):
        self.raw((s + "\x00").encode("utf-16-le"))

    def size_t(self, n):
        self.raw(struct.pack("<Q", int(n)))

    def int32(self, n):
        self.raw(struct.pack("<i", int(n)))

    def uint32(self, n):
        self.raw(struct.pack("<I", int(n)))

    def float32(self, x):
        self.raw(struct.pack("<f", float(x)))

    def boolean(self, b):
        self.raw(b"\x01" if b else b"\x00")

    def shape(self, python_shape):
        cpp = tuple(reversed(tuple(python_shape)))
        self.uint32(len(cpp))
        for d in cpp:
            self.uint32(d)

    def matrix(self, value, python_shape):
        value = np.asarray(value)
        cpp = tuple(reversed(tuple(python_shape)))
        rows = cpp[0] if cpp else 1
        self.raw(b"d")
        self.wstring("BMAT")
        self.size_t(value.dtype.itemsize)
        self.wstring("unnamed")
        self.int32(0)
        self.size_t(rows)
        self.size_t(value.size // rows if rows else 0)
        self.raw(np.ascontiguousarray(value, dtype=value.dtype.newbyteorder("<")).tobytes())
        self.wstring("EMAT")


class _V1Node(object):
    __slots__ = ("op", "name", "precision", "write_fields", "inputs")


class _Flattener(object):
    def __init__(self):
        self.nodes = []          # _V1Node, in the order written
        self.of_node = {}        # id(primitive node or leaf) -> _V1Node
        self.names = set()
        self.placeholders = {}   # block placeholder -> the outer variable it stands for
        self.inputs = []

    def _name(self, preferred, uid):
        name = preferred if preferred and preferred not in self.names else uid
        self.names.add(name)
        return name

    def _new(self, key, op, name, uid, dtype):
        n = _V1Node()
        n.op, n.name, n.inputs = op, self._name(name, uid), []
        n.precision = "double" if np.dtype(dtype) == np.float64 else "float"
        n.write_fields = lambda out: None
        self.of_node[key] = n
        self.nodes.append(n)
        return n

    def resolve(self, v):
        """The v1 node computing Variable ``v``."""
        while v.is_placeholder:
            if v not in self.placeholders:
                raise NotExpressible("an unbound placeholder %s" % (v.name or v.uid))
            v = self.placeholders[v]
        if not v.is_output:
            return self._leaf(v)
        node = v.owner
        if node._op.name == "Block":
            for ph, outer in node._block_arguments:
                self.placeholders[ph] = outer
            return self.resolve(node._block_root._outputs[node._outputs.index(v)])
        if node._op.name == "Combine":
            return self.resolve(node._inputs[node._outputs.index(v)])
        found = self.of_node.get(id(node))
        if found is not None:
            return found
        return self._primitive(node)

    def _leaf(self, v):
        found = self.of_node.get(id(v))
        if found is not None:
            return found
        if v._shape is None or any(d < 0 for d in v._shape):
            raise NotExpressible("variable %s has an unknown shape %s" % (v.name or v.uid, v._shape))
        shape = tuple(v._shape)
        if v.is_input:
            n = self._new(id(v), "SparseInputValue" if v._is_sparse else "InputValue", v.name, v.uid, v._dtype)

            def fields(out):
                out.size_t(int(np.prod(shape)))
                out.size_t(0)
                out.shape(shape)
                out.uint32(1)
                out.wstring("")  # the default dynamic axis
                out.float32(0)
            n.write_fields = fields
            self.inputs.append(n)
            return n
        if v.is_parameter or v.is_constant:
            value = np.asarray(v.value)
            n = self._new(id(v), "LearnableParameter", v.name, v.uid, value.dtype)

            def fields(out, value=value, lrm=1.0 if v.is_parameter else 0.0):
                out.float32(lrm)
                out.shape(shape)
                out.matrix(value.reshape(shape), shape)
            n.write_fields = fields
            return n
        raise NotExpressible("variable %s of kind %s" % (v.name or v.uid, v._kind))

    def _primitive(self, node):
        op = node._op.name
        where = "%s%s" % (node.op_name, " '%s'" % node.name if node.name else "")
        if len(node._outputs) != 1:
            raise NotExpressible("%s: %d outputs (v1 nodes have one)" % (where, len(node._outputs)))
        a = node._attributes or {}
        inputs = list(node._inputs)
        if op in _PLAIN:
            v1 = _PLAIN[op]
        elif op == "Softmax":
            x = inputs[0]
            # v1's Softmax normalizes each column of the [first axis x the rest] matrix: the softmax over the
            # last Python axis, the same as over all axes when the other axes have size 1
            if a.get("axis") not in (None, -1, len(x._shape) - 1) or any(d != 1 for d in x._shape[:-1]):
                raise NotExpressible("%s: softmax over axis %r of an operand of shape %s" % (where, a.get("axis"),
                                                                                           x._shape))
            v1 = "Softmax"
        elif op == "Times":
            v1 = "Times"
            inputs = [inputs[1], inputs[0]]  # C++ Times(W, x)
        elif op in ("PastValue", "FutureValue"):
            v1 = op
            init = inputs[1]
            if not init.is_constant or np.asarray(init.value).size != 1:
                raise NotExpressible("%s: an initial state other than a scalar constant" % where)
            inputs = inputs[:1]
        elif op == "Slice":
            v1 = "Slice"
            cut = self._slice(a, inputs[0], where)
        else:
            raise NotExpressible("%s: op %s has no v1 node type here" % (where, op))
        n = self._new(id(node), v1, node.name, node.uid, node._outputs[0]._dtype or np.float32)
        shape = tuple(node._outputs[0]._shape)
        if op == "Times":
            def fields(out):
                out.size_t(a.get("output_rank", 1))
                out.int32(a.get("infer_input_rank_to_map", -1))
            n.write_fields = fields
        elif op in ("PastValue", "FutureValue"):
            initial = float(np.asarray(node._inputs[1].value).reshape(-1)[0])

            def fields(out):
                out.int32(a["time_step"])
                out.shape(shape)
                out.float32(initial)
            n.write_fields = fields
        elif op == "Slice":
            def fields(out):
                begin, end, axis = cut
                out.size_t(begin)
                out.size_t(end - begin)
                out.int32(axis)
            n.write_fields = fields
        n.inputs = [self.resolve(i) for i in inputs]
        return n

    @staticmethod
    def _slice(a, x, where):
        """(begin, end, 1-based C++ axis) of a single-axis, unit-stride static slice."""
        axes = list(a["axes"])
        strides = list(a.get("strides") or [1] * len(axes))
        axis = axes[0] if len(axes) == 1 else None
        axis = getattr(axis, "_index", axis)
        if axis is None or not isinstance(axis, (int, np.integer)) or strides != [1]:
            raise NotExpressible("%s: only single static-axis slices with stride 1 have a v1 node" % where)
        rank = len(x._shape)
        axis = int(axis) + rank if axis < 0 else int(axis)
        dim = x._shape[axis]
        begin, end = int(a["begins"][0]), int(a["ends"][0])
        begin = begin + dim if begin < 0 else begin
        end = dim if end == 0 else (end + dim if end < 0 else min(end, dim))  # CNTK: an end of 0 is the axis end
        return begin, end, rank - axis


def model_bytes(function):
    """The v1 model file of ``function``: its outputs are the network's output nodes."""
    flat = _Flattener()
    roots = [flat.resolve(o) for o in function.outputs]
    out = _Out()
    out.wstring("BCN")
    out.wstring("BVersion")
    out.size_t(VERSION)
    out.wstring("EVersion")
    out.size_t(len(flat.nodes))
    out.wstring("BNodeList")
    for n in flat.nodes:
        out.wstring(n.precision)
        out.wstring(n.op)
        out.wstring(n.name)
        n.write_fields(out)
    out.wstring("ENodeList")
    out.wstring("BRelation")
    for n in flat.nodes:
        out.wstring(n.name)
        out.size_t(len(n.inputs))
        for i in n.inputs:
            out.wstring(i.name)
    out.wstring("ERelation")
    out.wstring("BRootNodes")
    for group, members in (("Feature", flat.inputs), ("Label", []), ("Criterion", []), ("Eval", []),
                           ("Output", roots)):
        out.wstring("B%sNodes" % group)
        out.size_t(len(members))
        for m in members:
            out.wstring(m.name)
        out.wstring("E%sNodes" % group)
    out.wstring("ERootNodes")
    out.wstring("ECN")
    return b"".join(out.parts)
