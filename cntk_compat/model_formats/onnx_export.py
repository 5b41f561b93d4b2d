"""ONNX export: CNTK 2.7's layout through onnx_writer (each function as ONNX nodes, opset 9) when every op has a
mapping there; otherwise through torch.onnx (the dynamo exporter, its current opset), described here.

The torch.onnx graph takes one tensor per argument, named by the argument's CNTK name (else its uid), batch first
with a dynamic batch axis, and for a sequence argument a dynamic sequence axis after it; outputs are named by
the CNTK outputs' names. Sequences in one ONNX call have equal length (ONNX has no mask input here); an LSTM
loop runs as torch's LSTM kernel inside the exported graph and becomes an ONNX LSTM node.
"""
import torch

from .exportable import Traceable, has_sequence_axis, sequence_axis_name


def export(function, filename, external_data=False, example_length=3):
    """Write ``function`` to ``filename`` as an ONNX model; with ``external_data``, each initializer (parameter,
    constant) goes to its own file beside it, named by the model file and the tensor's position, as ONNX's
    external data (the model refers to the files by name, relative to its own folder)."""
    from . import onnx_writer
    from ..core import atomic_file
    try:
        model = onnx_writer.model_proto(function)
    except onnx_writer.NotExpressible as e:
        model = torch_onnx_model(function, example_length, reason=str(e))
    if external_data:
        _move_initializers_to_files(model, filename)
    atomic_file.write_atomically(filename, model.SerializeToString(), "ONNX model file")


def _move_initializers_to_files(model, filename):
    import os
    from onnx import TensorProto, numpy_helper
    from onnx.external_data_helper import set_external_data
    from ..core import atomic_file
    folder, base = os.path.split(os.path.abspath(filename))
    for k, tensor in enumerate(model.graph.initializer):
        data = numpy_helper.to_array(tensor).tobytes()
        location = "%s.tensor%d" % (base, k)
        atomic_file.write_atomically(os.path.join(folder, location), data, "ONNX external data file")
        for field in ("float_data", "double_data", "int32_data", "int64_data"):
            tensor.ClearField(field)
        tensor.raw_data = data      # set_external_data reads the size from it
        set_external_data(tensor, location, length=len(data))
        tensor.ClearField("raw_data")
        tensor.data_location = TensorProto.EXTERNAL


def torch_onnx_model(function, example_length=3, reason=None):
    """The ModelProto torch.onnx makes of ``function`` (batch first, dynamic batch and sequence axes); a graph
    torch.export can only trace for one sequence length (a recurrence run as a step loop) is refused."""
    t = Traceable(function, example_length)
    with t.context():
        program = torch.onnx.export(t.wrapper, tuple(t.examples), None, input_names=t.input_names,
                                    output_names=t.output_names, dynamic_shapes=t.dynamic_shapes, dynamo=True,
                                    verbose=False)
    model = program.model_proto
    del model.graph.value_info[:]  # intermediate shape hints, specialized to the example's lengths
    _strip_wrapper_prefix(model)
    for value, v in zip(model.graph.input, function.arguments):
        dims = value.type.tensor_type.shape.dim
        if has_sequence_axis(v) and len(dims) >= 2 and not dims[1].dim_param:
            raise ValueError("save(format=ONNX): %s%s; torch.onnx could export it only for sequences of length %d "
                             "(the recurrence runs as a step loop), so it is not exported"
                             % (function.name or function.uid, " has no ONNX mapping (%s)" % reason if reason else "",
                                example_length))
    _symbolic_output_axes(model, t.outputs, t.sequence_dims)
    return model


def _strip_wrapper_prefix(model):
    """Initializers carry the CNTK parameter paths (hidden.W), without the exporting wrapper's prefix."""
    renamed = {}
    for init in model.graph.initializer:
        if init.name.startswith("module."):
            renamed[init.name] = init.name[len("module."):]
            init.name = renamed[init.name]
    for node in model.graph.node:
        for k, name in enumerate(node.input):
            if name in renamed:
                node.input[k] = renamed[name]


def _symbolic_output_axes(model, outputs, sequence_dims):
    """Name the outputs' batch (and sequence) axes as the inputs' (the exporter may specialize them)."""
    names = {axis: "seq_%d" % k for k, axis in enumerate(sequence_dims)}
    for value, v in zip(model.graph.output, outputs):
        dims = value.type.tensor_type.shape.dim
        if len(dims) >= 1:
            dims[0].dim_param = "batch"
        if has_sequence_axis(v) and len(dims) >= 2 and sequence_axis_name(v) in names:
            dims[1].dim_param = names[sequence_axis_name(v)]
