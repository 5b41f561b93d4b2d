"""Saving and loading Functions without pickle.

A model file is a zip archive holding
  graph.json  -- the graph: its leaf Variables (kind, name, shape, dtype, dynamic axes), then every node in
                 dependency order (registered op name, display op name, instance name, JSON-encoded attributes,
                 input wiring by uid; blocks with their inner graph; for ops that declare save_state (user
                 functions: their class and serialize() state) that state as "op_state"), and the outputs;
                 "loop_references" describes the outputs that a recurrent loop reads before their node is
                 listed (the walk met their node again while still below it); "name" the saved Function's own
                 name, which may differ from its root's;
  tensors.pt  -- a dict uid -> tensor of the Parameter and Constant values, read back with
                 torch.load(weights_only=True).
Loading rebuilds the graph through the op registry (so shape rules run again), with fresh uids. A loop
reference is a typed placeholder until its node is rebuilt, and is then replaced by that node's output in place,
which closes the loop exactly as replace_placeholders does.
"""
import enum
import io
import json
import os
import warnings
import zipfile
import zlib

import numpy as np
import torch

from . import atomic_file
from . import device as _device
from .axis import Axis
from .function import Function, as_block
from .graph import node_inputs_and_body, walk
from .hooks import provide
from .registry import get_op, udf_loaders
from .reinference import infer_in_place, substitute_in_place
from .variables import Constant, Parameter, Variable, VariableKind, typed_placeholder

FORMAT_NAME = "cntk-compat-model"
FORMAT_VERSION = 3  # 2 added "loop_references"; 3 renamed a node's "user_function" record "op_state"
_READABLE_VERSIONS = (1, 2, 3)
_GRAPH = "graph.json"
_TENSORS = "tensors.pt"



class ModelFormat(enum.Enum):
    CNTKv2 = 0
    ONNX = 1


def check_format(format, what):
    """None and CNTKv2 mean CNTK's v2 format (or this package's archive); ONNX goes to the registered ONNX
    reader/writer. Returns the ModelFormat."""
    if format is None or format == ModelFormat.CNTKv2:
        return ModelFormat.CNTKv2
    if format == ModelFormat.ONNX:
        if not _onnx:
            raise NotImplementedError("%s: ModelFormat.ONNX needs the onnx extra (pip install cntk-compat[onnx])"
                                      % what)
        return format
    raise ValueError("%s: format must be a ModelFormat, got %r" % (what, format))


# ONNX: {"save": save(function, filename, external_data), "load": load(bytes, description, folder of its external
# data files or None)}, registered by model_formats when the onnx package is installed
_onnx = {}


def register_onnx(save, load):
    _onnx.update(save=save, load=load)


def save_onnx(function, filename, external_data=False):
    _onnx["save"](function, filename, external_data)


def load_onnx(model):
    data, what = _model_source(model)
    folder = os.path.dirname(os.path.abspath(model)) if isinstance(model, (str, os.PathLike)) else None
    return _onnx["load"](data, what, folder)


# (module, qualified name) -> UserFunction subclass, filled as the program defines the classes
user_function_classes = {}
_importable_modules = set()


def allow_user_function_imports(*module_names):
    """Lets loading import these modules to find the user function classes a model names (by default loading
    imports nothing that a model file names: importing runs the module's code)."""
    for name in module_names:
        if not isinstance(name, str) or not name:
            raise TypeError("allow_user_function_imports: module names must be strings, got %r" % (name,))
    _importable_modules.update(module_names)


# model formats other than this package's zip, registered by the packages that read them (model_formats):
# name -> (detect(bytes) -> bool, load(bytes, description, udf_callbacks, device) -> Function)
_model_readers = {}
# formats read from the file itself rather than from its bytes in memory (CNTK's layout for models over 2 GB):
# name -> (detect(the file's first 8 bytes) -> bool, load_file(filename, description, udf_callbacks, device))
_file_readers = {}


def register_model_reader(name, detect, load):
    _model_readers[name] = (detect, load)


def register_file_reader(name, detect, load_file):
    _file_readers[name] = (detect, load_file)


# the default format save() writes, registered by model_formats: (to_parts(function): the file as a list of
# bytes-like parts, the exception it raises when the graph has something that format cannot express); without
# one, or for such a graph, save() writes this package's archive
_default_writer = []


def register_default_writer(to_parts, not_expressible):
    _default_writer[:] = [(to_parts, not_expressible)]


def default_format_parts(function):
    """What save() writes, as a list of bytes-like parts: CNTK's v2 format where it can express the graph (the
    tensors' values as views of the parameters' memory), else this package's archive."""
    if _default_writer:
        to_parts, not_expressible = _default_writer[0]
        try:
            return to_parts(function)
        except not_expressible:
            pass
    return [model_bytes(function)]


def default_format_bytes(function):
    """The bytes save() writes."""
    return b"".join(default_format_parts(function))


def _model_source(model):
    """(bytes, description) of a file name or a bytes buffer."""
    if isinstance(model, (bytes, bytearray, memoryview)):
        if not len(model):
            raise ValueError("The model buffer should not be null and its length should be greater than 0")
        return bytes(model), "the given buffer"
    if isinstance(model, (str, os.PathLike)):
        if os.path.isdir(model):
            raise RuntimeError("load_model: cannot read the model '%s': it is a directory" % (os.fspath(model),))
        if not os.path.isfile(model):   # CNTK 2.7's words
            raise ValueError("Cannot load the model %s that is neither a file nor a byte buffer." % (os.fspath(model),))
        with open(model, "rb") as f:
            return f.read(), "'%s'" % model
    raise TypeError("load_model: model must be a file name or a bytes buffer, got %s" % type(model).__name__)


# ----------------------------------------------------------------------------------------------- attributes
def encode_attribute(value, where):
    """A JSON-able form of an op attribute; the tagged dicts are undone by decode_attribute."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, np.generic):
        return {"__scalar__": value.item(), "dtype": value.dtype.name}
    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": value.dtype.name, "shape": list(value.shape)}
    if isinstance(value, np.dtype):
        return {"__dtype__": value.name}
    if isinstance(value, type) and issubclass(value, np.generic):
        return {"__dtype__": np.dtype(value).name}
    if isinstance(value, Axis):
        return {"__axis__": [value._name, value._index, value._ordered]}
    if isinstance(value, tuple):
        return {"__tuple__": [encode_attribute(v, where) for v in value]}
    if isinstance(value, list):
        return [encode_attribute(v, where) for v in value]
    if isinstance(value, dict):
        return {"__dict__": [[encode_attribute(k, where), encode_attribute(v, where)] for k, v in value.items()]}
    raise ValueError("save: %s has a value of type %s, which cannot be saved" % (where, type(value).__name__))


def decode_attribute(value):
    if isinstance(value, list):
        return [decode_attribute(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__scalar__" in value:
        return np.dtype(value["dtype"]).type(value["__scalar__"])
    if "__ndarray__" in value:
        return np.array(value["__ndarray__"], dtype=value["dtype"]).reshape(value["shape"])
    if "__dtype__" in value:
        return np.dtype(value["__dtype__"])
    if "__axis__" in value:
        name, index, ordered = value["__axis__"]
        axis = Axis(index) if index is not None else Axis(name, ordered)
        axis._ordered = ordered
        return axis
    if "__tuple__" in value:
        return tuple(decode_attribute(v) for v in value["__tuple__"])
    if "__dict__" in value:
        return {_hashable(decode_attribute(k)): decode_attribute(v) for k, v in value["__dict__"]}
    raise ValueError("load: unknown attribute encoding %r" % (sorted(value),))


def _hashable(key):
    return tuple(key) if isinstance(key, list) else key


# ----------------------------------------------------------------------------------------------- saving
def _describe_variable(v):
    return {"uid": v.uid, "kind": v._kind, "name": v.name,
            "shape": None if v._shape is None else list(v._shape),
            "dtype": None if v._dtype is None else np.dtype(v._dtype).name,
            "is_sparse": v._is_sparse, "needs_gradient": v._needs_gradient,
            "dynamic_axes": None if v._dynamic_axes is None else [encode_attribute(a, "dynamic axis")
                                                                   for a in v._dynamic_axes]}


def _describe_node(node):
    where = "attribute of %s%s" % (node._op_name, " '%s'" % node._name if node._name else "")
    record = {"uid": node.uid, "op": node._op.name, "op_name": node._op_name, "name": node._name,
              "inputs": [i.uid for i in node._inputs], "outputs": [o.uid for o in node._outputs],
              "attributes": encode_attribute(dict(node._attributes), where)}
    custom = node._custom_attributes
    if custom:
        record["custom_attributes"] = encode_attribute(dict(custom), "custom attribute")
    if node._block_root is not None:
        record["block"] = {"arguments": [[ph.uid, outer.uid] for ph, outer in node._block_arguments],
                           "outputs": [o.uid for o in node._block_root._outputs]}
    if node._op.save_state is not None:
        record["op_state"] = node._op.save_state(node)
    return record


def model_bytes(function):
    """The saved form of ``function`` (see the module docstring)."""
    leaves, nodes, loop_references = walk(function.outputs, node_inputs_and_body)
    tensors = {}
    for v in leaves:
        if v.is_parameter or v.is_constant:
            try:
                tensors[v.uid] = v.tensor.detach().cpu().clone()
            except ValueError as e:
                raise ValueError("save: %s" % e) from None
    arg_order = function._arg_order or []
    root = function._root
    graph = {"format": FORMAT_NAME, "version": FORMAT_VERSION,
             "variables": [_describe_variable(v) for v in leaves],
             "nodes": [_describe_node(n) for n in nodes],
             "loop_references": [_describe_variable(v) for v in loop_references],
             "outputs": [o.uid for o in function.outputs],
             "arguments": [a.uid for a in arg_order],
             "combine_name": root._name if root._op.outputs_are_inputs else None,
             "name": function._name}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(_GRAPH, json.dumps(graph))
        tensor_buffer = io.BytesIO()
        torch.save(tensors, tensor_buffer)
        archive.writestr(_TENSORS, tensor_buffer.getvalue())
    return buffer.getvalue()


def save(function, filename):
    """Writes the model file atomically (core.atomic_file): a kill or a full disk leaves the previous file."""
    atomic_file.write_atomically(filename, default_format_parts(function), "model file")


# ----------------------------------------------------------------------------------------------- loading
def _read_archive(model):
    """(graph dict, tensors dict) from a file name or a bytes buffer; RuntimeError (CNTK's) if not a model file."""
    data, what = _model_source(model)
    return _read_archive_bytes(data, what)


def _read_archive_bytes(data, what):
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            graph = json.loads(archive.read(_GRAPH).decode("utf-8"))
            tensor_bytes = archive.read(_TENSORS)
    except (zipfile.BadZipFile, KeyError, EOFError, UnicodeDecodeError, json.JSONDecodeError, zlib.error,
            RecursionError) as e:  # zlib: damaged compressed data; RecursionError: absurdly nested JSON
        raise RuntimeError("load_model: %s is not a model saved by cntk-compat (archive format) nor a CNTK v2 "
                           "model, or it is truncated or corrupt (%s: %s)"
                           % (what, type(e).__name__, e)) from None
    if not isinstance(graph, dict) or graph.get("format") != FORMAT_NAME:
        raise ValueError("load_model: %s is not a cntk-compat model (no %r format tag)" % (what, FORMAT_NAME))
    if graph.get("version") not in _READABLE_VERSIONS:
        raise ValueError("load_model: %s has model format version %r; this version reads versions %s"
                         % (what, graph.get("version"), ", ".join(str(v) for v in _READABLE_VERSIONS)))
    try:
        tensors = torch.load(io.BytesIO(tensor_bytes), weights_only=True)
    except Exception as e:
        raise ValueError("load_model: the parameter values in %s cannot be read (%s: %s)"
                         % (what, type(e).__name__, e)) from None
    return graph, tensors


def _dynamic_axes(encoded):
    return None if encoded is None else tuple(decode_attribute(a) for a in encoded)


def _rebuild_leaf(record, tensors, device):
    kind, name = record["kind"], record["name"]
    shape = None if record["shape"] is None else tuple(record["shape"])
    dtype = None if record["dtype"] is None else np.dtype(record["dtype"])
    if kind in (VariableKind.PARAMETER, VariableKind.CONSTANT):
        value = tensors.get(record["uid"])
        if value is None:
            raise ValueError("load_model: the value of %s %r is missing from the file" % (kind, name))
        array = value.numpy()
        if kind == VariableKind.PARAMETER:
            return Parameter(shape, array, dtype=dtype, device=device, name=name)
        return Constant(array, shape=shape, dtype=dtype, device=device, name=name)
    if kind == VariableKind.PLACEHOLDER:
        return _typed_placeholder(record)
    if kind == VariableKind.INPUT:
        return Variable(shape, dtype, record["needs_gradient"], record["is_sparse"],
                        _dynamic_axes(record["dynamic_axes"]), name)
    raise ValueError("load_model: unknown variable kind %r" % (kind,))


def _typed_placeholder(record):
    return typed_placeholder(None if record["shape"] is None else tuple(record["shape"]),
                             None if record["dtype"] is None else np.dtype(record["dtype"]), record["is_sparse"],
                             _dynamic_axes(record["dynamic_axes"]), record["name"])


def _close_loops(node, record, stand_ins, env):
    """Once the node whose outputs a loop read early is rebuilt, the stand-ins for them are replaced by its
    outputs in place, as replace_placeholders closes a loop."""
    closing = {stand_ins.pop(uid): env[uid] for uid in record["outputs"] if uid in stand_ins}
    if closing:
        substitute_in_place(node._outputs, closing)
        infer_in_place(node._outputs)


def _rebuild_node(record, env):
    inputs = [env[u] for u in record["inputs"]]
    attributes = decode_attribute(record["attributes"])
    op = None if "block" in record else get_op(record["op"])
    if op is None:
        block = record["block"]
        inner = Function._composite([env[u] for u in block["outputs"]],
                                    arg_order=[env[ph] for ph, _ in block["arguments"]])
        node = as_block(inner, [(env[ph], env[outer]) for ph, outer in block["arguments"]],
                        record["op_name"], record["name"]).root_function
    elif op.load_node is not None:
        node = op.load_node(record.get("op_state", record.get("user_function")), inputs, record["name"])
    else:
        node = Function._primitive(op, inputs, attributes, record["name"], record["op_name"])
    if record.get("custom_attributes"):
        node._custom_attributes = decode_attribute(record["custom_attributes"])
    if len(node._outputs) != len(record["outputs"]):
        raise ValueError("load_model: node %s rebuilt with %d outputs, the file has %d"
                         % (record["op_name"], len(node._outputs), len(record["outputs"])))
    for uid, out in zip(record["outputs"], node._outputs):
        env[uid] = out
    return node


def _is_archive(data):
    return data[:4] == b"PK\x03\x04"


def load(model, device=None):
    """The Function saved in ``model`` (a file name or bytes), with its Parameters on ``device``; the format
    (CNTK's v2 protobuf or legacy v1 format, or this package's archive) is told from the bytes."""
    device = _device.resolve(device)
    if isinstance(model, (str, os.PathLike)) and os.path.isfile(model) and _file_readers:
        with open(model, "rb") as f:
            head = f.read(8)
        for detect, read_file in _file_readers.values():
            if detect(head):
                return read_file(os.fspath(model), "'%s'" % model, udf_loaders(), device)
    data, what = _model_source(model)
    if not _is_archive(data):
        for detect, read in _model_readers.values():
            if detect(data):
                return read(data, what, udf_loaders(), device)
    graph, tensors = _read_archive_bytes(data, what)
    env = {}
    stand_ins = {}  # uid -> placeholder read by a loop until the node defining that uid is rebuilt
    try:
        for record in graph["variables"]:
            env[record["uid"]] = _rebuild_leaf(record, tensors, device)
        for record in graph.get("loop_references", ()):
            env[record["uid"]] = stand_ins[record["uid"]] = _typed_placeholder(record)
        for record in graph["nodes"]:
            _close_loops(_rebuild_node(record, env), record, stand_ins, env)
        if stand_ins:
            raise ValueError("load_model: the model file is inconsistent (%s, read by a recurrent loop, is never "
                             "defined)" % ", ".join(sorted(stand_ins)))
        outputs = [env[u] for u in graph["outputs"]]
        arguments = [env[u] for u in graph["arguments"]]
    except KeyError as e:
        raise ValueError("load_model: the model file is inconsistent (missing entry %s)" % e) from None
    combine_name = graph.get("combine_name")
    f = Function._composite(outputs, arg_order=arguments or None, name=combine_name,
                            combine_root=combine_name is not None)
    if "name" in graph:   # the Function's own name (files written before it was stored: its root's)
        f._name = graph["name"]
    return f


def _restore_parameters(function, loaded):
    leaves = walk(function.outputs, node_inputs_and_body).leaves
    loaded_leaves = walk(loaded.outputs, node_inputs_and_body).leaves
    mine = [v for v in leaves if v.is_parameter]
    saved = [v for v in loaded_leaves if v.is_parameter]
    if _signature(function, mine) != _signature(loaded, saved):
        raise ValueError("Function '%r' being restored is not equivalent (isomorphic) to the Function '%r' loaded "
                         "from checkpoint." % (function, loaded))
    for s, v in zip(saved, mine):
        v.set_value(s.tensor.detach().cpu())
    # constants (batch normalization's running statistics) by uid, which CNTK's format keeps
    saved_constants = {v.uid: v for v in loaded_leaves if v.is_constant}
    for v in leaves:
        s = saved_constants.get(v.uid) if v.is_constant else None
        if s is not None and tuple(s.shape) == tuple(v.shape):
            v.set_value(s.tensor.detach().cpu())


def _signature(function, parameters):
    """What CNTK 2.7's restore compares of two Functions here: their arguments' and outputs' types and their
    parameters' shapes, in order."""
    def typed(v):
        return tuple(v.shape), tuple(a.name for a in v.dynamic_axes), np.dtype(v.dtype), v.is_sparse
    return ([typed(v) for v in function.arguments], [typed(o) for o in function.outputs],
            [tuple(p.shape) for p in parameters])


def restore(function, model):
    """Copies the Parameter and Constant values saved in ``model`` into ``function`` (same architecture); from a
    CNTK-format file, constants are matched by uid."""
    data, what = _model_source(model)
    if not _is_archive(data):
        return _restore_parameters(function, load(data))
    graph, tensors = _read_archive_bytes(data, what)
    saved = [r for r in graph["variables"] if r["kind"] in (VariableKind.PARAMETER, VariableKind.CONSTANT)]
    leaves = walk(function.outputs, node_inputs_and_body).leaves
    mine = [v for v in leaves if v.is_parameter or v.is_constant]
    if len(saved) != len(mine):
        raise ValueError("restore: the model file has %d parameters and constants, this Function has %d"
                         % (len(saved), len(mine)))
    for record, v in zip(saved, mine):
        value = tensors[record["uid"]]
        if record["kind"] != v._kind or tuple(value.shape) != tuple(v.shape):
            raise ValueError("restore: %s %r of shape %s in the file does not match %s %r of shape %s"
                             % (record["kind"], record["name"], tuple(value.shape), v._kind, v.name, v.shape))
    for record, v in zip(saved, mine):
        v.set_value(tensors[record["uid"]])


def _save_function(function, filename, format=None, use_external_files_to_store_parameters=False):
    if check_format(format, "save") == ModelFormat.ONNX:
        return save_onnx(function, filename, use_external_files_to_store_parameters)
    if use_external_files_to_store_parameters:
        # as CNTK 2.7 does: it warns and keeps the parameters in the model file
        warnings.warn("use_external_files_to_store_parameters only applies to the ONNX format; the CNTK model file "
                      "%r keeps its parameters" % (str(filename),), stacklevel=3)
    save(function, filename)


def _load_function(model, device=None, format=None):
    if check_format(format, "load") == ModelFormat.ONNX:
        return load_onnx(model)
    return load(model, device)


provide(save=_save_function, load=_load_function, restore=restore)
