"""Reading CNTK's v2 model format (a protobuf Dictionary) into an ordinary graph of this package's ops.

Layout of a model (CompositeFunction dictionary): "uid", "name", "root" (uid of the root primitive function),
"inputs" (every leaf Variable of the graph and of its blocks: kind, shape, dtype, dynamic axes, value),
"primitive_functions" (op code, attributes, inputs by uid; a Block also holds its own composite and the map
from its placeholders to its arguments). The output i of a function with uid U has uid "U_Output_i". A
recurrent loop reads an output before its function is listed: the file lists such outputs among the inputs as
typed placeholders (or does not list them at all); they stand in until that function is rebuilt and are then
replaced in place. Nothing from the file is executed: op codes select builders of this package, user
functions resolve only through callbacks the user registered or classes the program defined itself.
"""
import io
import re
import sys

import numpy as np

from ..core import uid as _uid
from ..core.function import Function, as_block
from ..core.reinference import infer_in_place, substitute_in_place
from ..core.dtypes import is_storage_only
from ..core.variables import Constant, OwnedValue, Parameter, Variable, new_placeholder
from . import cntkv2_wire as wire
from .cntkv2_ops import BUILDERS, OP_NAMES, dynamic_axes
from .cntkv2_values import DTYPE_OF_CODE, StoredArray, plain_values

_KIND_INPUT, _KIND_OUTPUT, _KIND_PARAMETER, _KIND_CONSTANT, _KIND_PLACEHOLDER = 0, 1, 2, 3, 4
_OUTPUT_UID = re.compile(r"^(.*)_Output_(\d+)$")
_OP_WHERE, _OP_PACKED_INDEX, _OP_GATHER_PACKED, _OP_SCATTER_PACKED = 13, 28, 29, 30
_OP_COMBINE, _OP_BLOCK, _OP_USER = 44, 57, None
_OP_TRANSPOSE, _OP_CONVOLUTION, _OP_STOP_GRADIENT, _OP_TO_SEQUENCE, _OP_UNPACK_SEQUENCE = 12, 33, 64, 70, 72
_OP_CONVOLUTION_SEQUENCE_SHAPE = 97
_STATEFUL_OPS = (15, 45, 46, 76)  # Dropout, RandomSample, RandomSampleInclusionFrequency, RandomDistribution


def _sequential_convolutions(records):
    """CNTK writes convolution(..., sequential=True) as ToSequence(TransposeAxes(Convolution(W, TransposeAxes(
    UnpackSequence(x)))), StopGradient(ConvolutionSequenceShape(W, x))). Returns {ToSequence uid: (W uid, x uid,
    the Convolution record)} and the uids of the chains' other records (rebuilt as one sequential convolution),
    for the chains whose inner results nothing else reads."""
    by_output = {"%s_Output_0" % pf["uid"]: pf for pf in records}
    readers = {}
    for pf in records:
        for u in pf.get("inputs", ()):
            readers[u] = readers.get(u, 0) + 1
    found, inner = {}, set()

    def producer(u, op):
        pf = by_output.get(u)
        if pf is None or pf.get("op") != op or readers.get(u, 0) != 1:
            return None
        return pf
    for pf in records:
        if pf.get("op") != _OP_TO_SEQUENCE or len(pf.get("inputs", ())) != 2:
            continue
        stop = producer(pf["inputs"][1], _OP_STOP_GRADIENT)
        shape = stop and producer(stop["inputs"][0], _OP_CONVOLUTION_SEQUENCE_SHAPE)
        back = producer(pf["inputs"][0], _OP_TRANSPOSE)
        conv = back and producer(back["inputs"][0], _OP_CONVOLUTION)
        there = conv and len(conv["inputs"]) == 2 and producer(conv["inputs"][1], _OP_TRANSPOSE)
        unpack = there and producer(there["inputs"][0], _OP_UNPACK_SEQUENCE)
        if not (shape and unpack) or list(shape["inputs"]) != [conv["inputs"][0], unpack["inputs"][0]]:
            continue
        found[pf["uid"]] = (conv["inputs"][0], unpack["inputs"][0], conv)
        inner.update(r["uid"] for r in (stop, shape, back, conv, there, unpack))
    return found, inner


def looks_like_cntkv2(data):
    """True if ``data`` (bytes) starts like a CNTK v2 Dictionary: field 1 (version, varint) then field 2 (data), or
    with the header of CNTK's layout for models over 2 GB."""
    return (len(data) > 2 and data[0] == 0x08 and data[1] in (1, 2, 3) and data[2] == 0x12) or \
        wire.is_large_layout(data[:8])


def parse(data, what):
    """The model Dictionary in ``data`` (bytes-like), read by cntkv2_wire: the values the protobuf runtime reads,
    each tensor copied once out of ``data``."""
    if wire.is_large_layout(data[:8]):
        return wire.read_large(io.BytesIO(data), what)
    return wire.parse_dictionary(data, what)


class _Pending(object):
    """Where/PackedIndex results: CNTK spells sequence.gather/scatter as Where -> PackedIndex -> GatherPacked/
    ScatterPacked; the chain is rebuilt as one gather/scatter op when its last link is met."""

    def __init__(self, op, inputs, attrs):
        self.op, self.inputs, self.attrs = op, inputs, attrs


class _Reader(object):
    def __init__(self, top, what, udf_callbacks, device):
        self.what = what
        self.device = device
        self.udf_callbacks = udf_callbacks
        self.env = {}
        self.stand_ins = {}
        self.closed = {}  # stand-in -> the output it stood for
        self.leaf_records = {}
        self.max_uid_number = 0
        self.argument_tuples = []  # the inputs of CNTK's 'Tuple' blocks (see _argument_tuple)
        self._flat_records = {}
        self._collect_leaves(top)
        # the file's uid numbers are taken before anything is built: the functions a builder adds (CNTK's small
        # graphs of an op, a block's helpers) must not get a uid the file gives to another of its functions
        _uid.reserve(self.max_uid_number)

    # ----------------------------------------------------------------------------------------- leaves
    def _collect_leaves(self, composite):
        for record in composite.get("inputs", ()):
            self.leaf_records.setdefault(record["uid"], record)
            self._note_uid(record["uid"])
        for pf in composite.get("primitive_functions", ()):
            self._note_uid(pf.get("uid"))
            self._flat_records[pf.get("uid")] = pf
            if "block_function_composite" in pf:
                self._collect_leaves(pf["block_function_composite"])

    def _note_uid(self, uid):
        m = re.search(r"(\d+)$", uid or "")
        if m:
            self.max_uid_number = max(self.max_uid_number, int(m.group(1)))

    def _leaf(self, record):
        kind = record["kind"]
        where = "%s: variable %s" % (self.what, record["uid"])
        shape = tuple(record["shape"])
        dtype = DTYPE_OF_CODE.get(record.get("data_type", 1))
        name = record.get("name", "")
        axes = dynamic_axes(record.get("dynamic_axis", ()))
        if kind in (_KIND_PARAMETER, _KIND_CONSTANT):
            value = record.get("value")
            if not isinstance(value, StoredArray):
                raise ValueError("%s has no value" % where)
            array = value.array
            if dtype is not None and array.dtype != dtype:
                array = array.astype(dtype)
            # the array read from the file is the holder's own (no copy); storage-only types go the usual way
            init = array if is_storage_only(array.dtype) else OwnedValue(array)
            if kind == _KIND_PARAMETER:
                v = Parameter(shape, init, dtype=array.dtype, device=self.device, name=name)
            else:
                v = Constant(init, shape=shape, dtype=array.dtype, device=self.device, name=name)
        elif kind == _KIND_INPUT:
            v = Variable(shape, dtype or np.float32, bool(record.get("needs_gradient", False)),
                         bool(record.get("is_sparse", False)), axes, name)
        elif kind == _KIND_PLACEHOLDER:
            v = new_placeholder(None if shape == (-2,) else shape, axes, name)  # (-2,): NDShape::Unknown()
            v._dtype = dtype
            v._is_sparse = bool(record.get("is_sparse", False))
        else:
            raise ValueError("%s has variable kind %r, expected an input, parameter, constant or placeholder"
                             % (where, kind))
        v._uid = record["uid"]
        self._note_uid(record["uid"])
        return v

    def variable(self, uid):
        v = self.env.get(uid)
        if v is not None:
            return v
        record = self.leaf_records.get(uid)
        if record is not None and not (record["kind"] == _KIND_PLACEHOLDER and _OUTPUT_UID.match(uid)):
            v = self.env[uid] = self._leaf(record)
            return v
        if _OUTPUT_UID.match(uid):  # read by a loop before its function is rebuilt
            v = self._leaf(record) if record is not None else new_placeholder(name="")
            self.env[uid] = self.stand_ins[uid] = v
            return v
        raise ValueError("%s: a function reads %r, which the file does not define" % (self.what, uid))

    # ----------------------------------------------------------------------------------------- functions
    def composite(self, record, arguments=()):
        """Rebuild a composite (the model, or a block's body); its output Variables."""
        records = record.get("primitive_functions", ())
        if records and record.get("version", 3) < 3:
            _warn_missing_random_states(record, records)
        found, inner = _sequential_convolutions(records)
        for pf in records:
            if pf["uid"] in inner:
                continue
            if pf["uid"] in found:
                self._sequential_convolution(pf, *found[pf["uid"]])
                continue
            self._function(pf)
        root = record["root"]
        root_pf = self._root_record(record, root)
        if root_pf is not None and root_pf.get("op") == _OP_COMBINE:
            return [self._variable_input(u, root) for u in root_pf["inputs"]]
        if root_pf is not None and root_pf.get("op") == _OP_WHERE:
            return [self._variable_input("%s_Output_0" % root, root)]
        outputs, i = [], 0
        while "%s_Output_%d" % (root, i) in self.env:
            outputs.append(self.env["%s_Output_%d" % (root, i)])
            i += 1
        if not outputs:
            raise ValueError("%s: the root function %r is not defined" % (self.what, root))
        return outputs

    @staticmethod
    def _root_record(record, root):
        for pf in record.get("primitive_functions", ()):
            if pf["uid"] == root:
                return pf
        return None

    def _function(self, pf):
        op, uid = pf.get("op"), pf["uid"]
        name = pf.get("name", "")
        attrs = pf.get("attributes", {})
        self._note_uid(uid)
        if pf.get("type") not in (None, "PrimitiveFunction"):
            f = self._user_function(pf)
        elif op == _OP_COMBINE:
            for i, u in enumerate(pf["inputs"]):
                self.env.setdefault("%s_Output_%d" % (uid, i), self.variable(u))
            return
        elif op in (_OP_WHERE, _OP_PACKED_INDEX):
            pending = _Pending(op, [self._input(u) for u in pf["inputs"]], attrs)
            pending.uid, pending.name = uid, name
            self.env["%s_Output_0" % uid] = pending
            return
        elif op in (_OP_GATHER_PACKED, _OP_SCATTER_PACKED):
            f = self._packed(op, pf, name)
        elif op == _OP_BLOCK:
            if self._argument_tuple(pf):
                return
            f = self._block(pf, name)
        else:
            builder = BUILDERS.get(op)
            if builder is None:
                raise ValueError("%s: function %s uses CNTK op %s (code %d), which cntk-compat cannot load"
                                 % (self.what, uid, OP_NAMES.get(op, "?"), op))
            inputs = [self._variable_input(u, uid) for u in pf["inputs"]]
            try:
                f = builder(inputs, attrs, name)
            except Exception as e:
                raise ValueError("%s: function %s (%s%s): %s" % (self.what, uid, OP_NAMES.get(op, op),
                                                                  " '%s'" % name if name else "", e)) from e
        self._define(uid, f, attrs.get("customAttributes"))

    def _sequential_convolution(self, pf, kernel, operand, conv):
        from .cntkv2_ops import sequential_convolution
        w, x = self._variable_input(kernel, pf["uid"]), self._variable_input(operand, pf["uid"])
        try:
            f = sequential_convolution(w, x, conv.get("attributes", {}), conv.get("name", ""))
        except Exception as e:
            raise ValueError("%s: function %s (a sequential Convolution): %s" % (self.what, pf["uid"], e)) from e
        self._define(pf["uid"], f)

    def _input(self, u):
        return self.variable(u)

    def _where_value(self, pending, uid):
        """A Where result read as a value (sequence.where), not by a PackedIndex."""
        from .. import sequence
        from ..ops.sequence._select import where_on_new_axis
        scaling = pending.attrs.get("newSequenceAxisLengthScalingFactor", 1)
        additive = pending.attrs.get("newSequenceAxisLengthAdditiveFactor", 0)
        typeinfo = None if (scaling, additive) == (1, 0) else (scaling, additive)
        new_axes = pending.attrs.get("newDynamicAxes")
        if new_axes is not None and any(a.ordered for a in new_axes):
            f = where_on_new_axis(pending.inputs[0], pending.name, typeinfo)
        else:
            f = sequence.where(pending.inputs[0], new_sequence_axis_typeinfo=typeinfo, name=pending.name)
        self._define(pending.uid, f)
        return self.env[uid]

    def _variable_input(self, u, reader):
        v = self.variable(u)
        if isinstance(v, _Pending) and v.op == _OP_WHERE:
            return self._where_value(v, u)
        if isinstance(v, _Pending):
            raise ValueError("%s: function %s reads %s, a %s result, which only GatherPacked/ScatterPacked "
                             "may read" % (self.what, reader, u, OP_NAMES[v.op]))
        return v

    def _define(self, uid, f, custom=None):
        node = f._root if f.is_composite else f
        node._uid = uid
        if custom:
            node._custom_attributes = {k: plain_values(v) for k, v in custom.items()}
        closing = {}
        for i, out in enumerate(f.outputs):
            key = "%s_Output_%d" % (uid, i)
            out._uid = key
            stand_in = self.stand_ins.pop(key, None)
            if stand_in is not None:
                closing[stand_in] = self.closed[stand_in] = out
            self.env[key] = out
        if closing:
            substitute_in_place(f.outputs, closing)
            infer_in_place(f.outputs)

    def _where_chain(self, packed_index, what):
        if not isinstance(packed_index, _Pending) or packed_index.op != _OP_PACKED_INDEX:
            raise ValueError("%s: %s must read a PackedIndex result" % (self.what, what))
        where = packed_index.inputs[1]
        if not isinstance(where, _Pending) or where.op != _OP_WHERE:
            raise ValueError("%s: the PackedIndex read by %s must read a Where result" % (self.what, what))
        return where

    def _packed(self, op, pf, name):
        from .. import sequence
        from ..ops.sequence._select import gather_on_new_axis
        from ..ops.misc import cast
        ins = [self.variable(u) for u in pf["inputs"]]
        where = self._where_chain(ins[1], pf["uid"])
        condition = where.inputs[0]
        if condition.dtype != ins[0].dtype:
            # CNTK's own sequence.first/last compute their condition in float32 whatever the data's precision
            condition = cast(condition, ins[0].dtype)
        attrs = where.attrs
        scaling = attrs.get("newSequenceAxisLengthScalingFactor", 1)
        additive = attrs.get("newSequenceAxisLengthAdditiveFactor", 0)
        typeinfo = None if (scaling, additive) == (1, 0) else (scaling, additive)
        try:
            if op == _OP_GATHER_PACKED:
                new_axes = attrs.get("newDynamicAxes")
                if new_axes is not None and not any(a.ordered for a in new_axes):
                    # the result has only the batch axis left: one element per sequence (a gather with
                    # typeinfo (0, 1) gives that itself)
                    if typeinfo == (0, 1):
                        return sequence.gather(ins[0], condition, typeinfo, name=name)
                    return sequence.first(sequence.gather(ins[0], condition, typeinfo), name=name)
                return gather_on_new_axis(ins[0], condition, typeinfo, name=name)
            return sequence.scatter(ins[0], ins[2] if len(ins) > 2 else condition, name=name)
        except Exception as e:
            raise ValueError("%s: function %s (%s): %s" % (self.what, pf["uid"], OP_NAMES[op], e)) from e

    def _argument_tuple(self, pf):
        """CNTK's @Function, when a walk of the graph it built meets the arguments out of the Python parameters'
        order, puts a 'Tuple' block ahead of them: a Combine of placeholders bound to the arguments, in order.
        Its outputs are its inputs; it is read as that (no block, which would make each output depend on every
        argument) and its inputs give the composite's argument order. True if ``pf`` is such a block."""
        if pf.get("block_function_op_name") != "Tuple":
            return False
        body = pf["block_function_composite"]
        keys = list(pf["block_function_composite_arguments_map_keys"])
        values = list(pf["block_function_composite_arguments_map_values"])
        combine = self._root_record(body, body["root"]) or self._flat_records.get(body["root"])
        if combine is None or combine.get("op") != _OP_COMBINE or sorted(combine["inputs"]) != sorted(keys) or \
                len(set(keys)) != len(keys):
            return False
        outer = [self._variable_input(u, pf["uid"]) for u in values]
        for i, u in enumerate(combine["inputs"]):
            self.env["%s_Output_%d" % (pf["uid"], i)] = outer[keys.index(u)]
        self.argument_tuples.append(outer)
        return True

    def _block(self, pf, name):
        body = pf["block_function_composite"]
        keys = pf["block_function_composite_arguments_map_keys"]
        values = pf["block_function_composite_arguments_map_values"]
        outer = [self._variable_input(u, pf["uid"]) for u in values]
        placeholders = [self.variable(k) for k in keys]
        inner_outputs = self.composite(body)
        inner = Function._composite(inner_outputs, arg_order=placeholders)
        op_name = pf.get("block_function_op_name", "Block")
        try:
            return as_block(inner, list(zip(placeholders, outer)), op_name, name)
        except Exception as e:
            raise ValueError("%s: block %s (%s): %s" % (self.what, pf["uid"], op_name, e)) from e

    def _user_function(self, pf):
        """A user-defined function: CNTK 2.7 keeps its op name, Python module and class and its serialize() state
        in "user_defined_state". It is rebuilt by the callback registered for the op name, else by the deserialize
        of a class of that module and name which this program has defined (or whose module the user allowed
        importing); nothing named in the file is imported otherwise."""
        info = pf.get("user_defined_state") or {}
        op_name = info.get("op_name") or pf.get("op_name") or pf.get("type")
        if info.get("module") and info.get("class") and not pf.get("native"):
            from ..core.registry import get_op
            from ..core.serialization import encode_attribute
            inputs = [self._variable_input(u, pf["uid"]) for u in pf["inputs"]]
            where = "the state of user function %s" % op_name
            saved = {"module": info["module"], "class": info["class"], "op_name": op_name,
                     "state": encode_attribute(plain_values(info.get("state", {})), where)}
            try:
                return get_op("UserFunction").load_node(saved, inputs, pf.get("name", ""))
            except ValueError as e:
                raise ValueError("%s: function %s: %s" % (self.what, pf["uid"], e)) from None
        callback = self.udf_callbacks.get(op_name)
        if callback is None:
            raise ValueError("%s: function %s is a user-defined function %r; register its deserializer with "
                             "Function.register_udf_deserialize_callback(%r, ...) to load it (code from a model "
                             "file is never run)" % (self.what, pf["uid"], op_name, op_name))
        inputs = [self._variable_input(u, pf["uid"]) for u in pf["inputs"]]
        f = callback(inputs, pf.get("name", ""), pf.get("state", {}))
        if not isinstance(f, Function):
            raise TypeError("%s: the deserializer of %r returned %s, expected a Function"
                            % (self.what, op_name, type(f).__name__))
        return f


def _warn_missing_random_states(record, records):
    """Composites saved before version 3 (CNTK 2.0's files) keep the random state of their stateful functions
    (dropout, random sampling) in the composite's 'state' dictionary, by uid, rather than in each function's
    attributes. For a stateful function without an entry there CNTK 2.7 says so on stderr (without a line end), and
    the function draws from a fresh state."""
    state = record.get("state") or {}
    for pf in records:
        if pf.get("op") in _STATEFUL_OPS and pf["uid"] not in state:
            sys.stderr.write("WARNING: no state information found for the stateful function (%s) when deserializing "
                             "from a dictionary (version=%d). Reproducibility not guaranteed."
                             % (OP_NAMES[pf["op"]], record["version"]))
            sys.stderr.flush()


def load(data, what, udf_callbacks, device=None, top=None):
    """The Function described by the CNTK v2 model ``data`` (bytes), its Parameters on ``device`` (``top``: the
    model's Dictionary when it is already read, see load_file)."""
    top = parse(data, what) if top is None else top
    if "root" not in top or "primitive_functions" not in top:
        raise ValueError("load_model: %s is a CNTK Dictionary but not a model (no 'root'/'primitive_functions'; "
                         "keys %s)" % (what, ", ".join(sorted(top))))
    reader = _Reader(top, what, udf_callbacks, device)
    try:
        outputs = reader.composite(top)
    except KeyError as e:
        raise ValueError("load_model: %s is a truncated or corrupt CNTK v2 model (a record lacks %s)"
                         % (what, e)) from None
    if reader.stand_ins:
        raise ValueError("%s: the file reads %s, never defined" % (what, ", ".join(sorted(reader.stand_ins))))
    # a function listed before the one whose output it reads, outside any loop, still reads the stand-in
    substitute_in_place(outputs, reader.closed)
    infer_in_place(outputs)
    _uid.reserve(reader.max_uid_number)
    root = reader._root_record(top, top["root"])
    # a file whose root is a Combine (also of one output: what combine([f]) and CNTK's Recurrence/Fold layers
    # give) loads with a Combine root, as in CNTK 2.7 (root_function.op_name 'Combine')
    combine_root = root is not None and root.get("op") == _OP_COMBINE
    f = Function._composite(outputs, name=root.get("name", "") if combine_root else None, combine_root=combine_root)
    f._name = top.get("name", "")   # the composite's own name (the root's is written with the root)
    arguments = set(f.arguments)
    for order in reader.argument_tuples:  # the order CNTK's @Function gave the model's arguments
        if len(order) == len(arguments) and set(order) == arguments:
            f._arg_order = list(order)
            break
    f._uid = top.get("uid") or f._uid
    if combine_root and f._root._op.name == "Combine":
        f._root._uid = root["uid"]  # as CNTK keeps it: the file's Combine is the composite's root
    return f



def load_file(filename, what, udf_callbacks, device=None):
    """The Function in the CNTK v2 model file ``filename`` (either layout), its tensors' values copied once from
    the file (not the whole file into memory first, see cntkv2_wire.read_file)."""
    return load(None, what, udf_callbacks, device, top=wire.read_file(filename, what))
