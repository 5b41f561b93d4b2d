"""ONNX export of a Function through torch.onnx (the dynamo exporter, its current opset).

The exported graph takes one tensor per argument, named by the argument's CNTK name (else its uid), batch first
with a dynamic batch axis, and for a sequence argument a dynamic sequence axis after it; outputs are named by
the CNTK outputs' names. Sequences in one ONNX call have equal length (ONNX has no mask input here); an LSTM
loop runs as torch's LSTM kernel inside the exported graph.
"""
import contextlib

import torch



def _name(v, taken):
    base = "".join(c if c.isalnum() or c in "_." else "_" for c in (v.name or v.uid)) or "v"
    name, k = base, 1
    while name in taken:
        k += 1
        name = "%s_%d" % (base, k)
    taken.add(name)
    return name


class _FullSequences(torch.nn.Module):
    """Feeds the lowered module all-true masks: every sequence of a call spans the whole sequence axis."""

    def __init__(self, module, mask_args):
        super().__init__()
        self.module = module
        self.mask_args = mask_args  # per mask the module takes, the argument whose sequence axis it is

    def forward(self, *args):
        masks = []
        for index in self.mask_args:
            x = args[index]
            masks.append(torch.ones(x.shape[0], x.shape[1], dtype=torch.bool, device=x.device))
        out = self.module(*args, *masks)
        return out if len(out) > 1 else out[0]


@contextlib.contextmanager
def _assume_full_sequences(module):
    from ..core.fused_recurrence import FusedLSTM
    fused = [m for m in module.modules() if isinstance(m, FusedLSTM)]
    for m in fused:
        m.sequences_are_full = True
    try:
        yield
    finally:
        for m in fused:
            m.sequences_are_full = False


def export(function, filename, example_length=3):
    """Write ``function`` to ``filename`` as an ONNX model."""
    arguments = list(function.arguments)
    module = function.torch_module(arguments)
    if module.made_mask_axes:
        raise ValueError("ONNX export: the outputs lie on a sequence axis made inside the graph (%s); ONNX "
                         "export covers graphs whose outputs keep their inputs' axes" % ", ".join(module.made_mask_axes))
    taken = set()
    input_names = [_name(a, taken) for a in arguments]
    output_names = [_name(o, taken) for o in function.outputs]
    examples, dynamic = [], []
    batch = torch.export.Dim("batch", min=1, max=1 << 20)
    sequence_dims = {}
    for a in arguments:
        if a.shape is None or any(d < 0 for d in a.shape):
            raise ValueError("ONNX export: argument %s has an unknown shape %s" % (a.name or a.uid, a.shape))
        axes = {0: batch}
        lead = (2,)
        if _has_sequence_axis(a):
            axis_name = _sequence_axis_name(a)
            if axis_name not in sequence_dims:
                sequence_dims[axis_name] = torch.export.Dim("seq_%d" % len(sequence_dims), min=1, max=1 << 20)
            axes[1] = sequence_dims[axis_name]
            lead = (2, example_length)
        examples.append(torch.randn(lead + tuple(a.shape)).to(_torch_dtype(a)))
        dynamic.append(axes)
    mask_args = []
    for axis_name in module.mask_axes:
        users = [k for k, a in enumerate(arguments) if _has_sequence_axis(a) and _sequence_axis_name(a) == axis_name]
        if not users:
            raise ValueError("ONNX export: no argument carries the sequence axis %s" % axis_name)
        mask_args.append(users[0])
    wrapper = _FullSequences(module, mask_args)
    with _assume_full_sequences(module):
        program = torch.onnx.export(wrapper, tuple(examples), None, input_names=input_names,
                                    output_names=output_names, dynamic_shapes=(tuple(dynamic),), dynamo=True,
                                    verbose=False)
    model = program.model_proto
    del model.graph.value_info[:]  # intermediate shape hints, specialized to the example's lengths
    _strip_wrapper_prefix(model)
    _symbolic_output_axes(model, function.outputs, sequence_dims)
    from ..core import atomic_file
    atomic_file.write_atomically(filename, model.SerializeToString(), "ONNX model file")


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
        if _has_sequence_axis(v) and len(dims) >= 2 and _sequence_axis_name(v) in names:
            dims[1].dim_param = names[_sequence_axis_name(v)]


def _has_sequence_axis(v):
    return any(ax.is_sequence_axis for ax in v.dynamic_axes)


def _sequence_axis_name(v):
    return [ax.name for ax in v.dynamic_axes if ax.is_sequence_axis][0]


def _torch_dtype(v):
    from ..core.dtypes import to_torch_dtype
    return to_torch_dtype(v.dtype)
