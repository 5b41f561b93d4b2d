"""python -m cntk_compat.export_torch MODEL OUT.py: standalone PyTorch source for a model.

Writes OUT.py, an nn.Module class `Model` whose parameters carry the CNTK names (hidden.W, ...) and whose forward
is the model's computation as torch operations (traced with torch.export), and OUT.pt, its weights as a state_dict
that loads with torch.load(weights_only=True). The generated file imports torch only. Inputs are batch first
(sequence inputs: batch, time, ...), sequences of one call of equal length, of any length. A recurrence run here by
one of torch's RNN kernels (LSTM, tanh/ReLU RNN) is traced as one opaque op, so the kernel's decomposition cannot fix
the sequence length, and is written as a call of torch.lstm / rnn_tanh / rnn_relu; recurrences run as step loops
are refused.

    from OUT import Model
    m = Model(); m.load_state_dict(torch.load("OUT.pt", weights_only=True)); y = m(x)
"""
import argparse
import contextlib
import os
import re

import torch

from .core import atomic_file, fused_recurrence
from .model_formats.exportable import Traceable


@torch.library.custom_op("cntk_compat_export::lstm", mutates_args=())
def _lstm_op(x: torch.Tensor, h0: torch.Tensor, c0: torch.Tensor, w_ih: torch.Tensor, w_hh: torch.Tensor,
             b_ih: torch.Tensor, b_hh: torch.Tensor) -> torch.Tensor:
    return torch.lstm(x, (h0, c0), [w_ih, w_hh, b_ih, b_hh], True, 1, 0.0, False, False, True)[0]


@torch.library.custom_op("cntk_compat_export::rnn_tanh", mutates_args=())
def _rnn_tanh_op(x: torch.Tensor, h0: torch.Tensor, w_ih: torch.Tensor, w_hh: torch.Tensor, b_ih: torch.Tensor,
                 b_hh: torch.Tensor) -> torch.Tensor:
    return torch.rnn_tanh(x, h0, [w_ih, w_hh, b_ih, b_hh], True, 1, 0.0, False, False, True)[0]


@torch.library.custom_op("cntk_compat_export::rnn_relu", mutates_args=())
def _rnn_relu_op(x: torch.Tensor, h0: torch.Tensor, w_ih: torch.Tensor, w_hh: torch.Tensor, b_ih: torch.Tensor,
                 b_hh: torch.Tensor) -> torch.Tensor:
    return torch.rnn_relu(x, h0, [w_ih, w_hh, b_ih, b_hh], True, 1, 0.0, False, False, True)[0]


def _sequence_shape(x, *rest):
    return x.new_empty((x.shape[0], x.shape[1], rest[-3].shape[1]))  # rest[-3]: w_hh (gates*dim, dim)


for _op in (_lstm_op, _rnn_tanh_op, _rnn_relu_op):
    _op.register_fake(_sequence_shape)

_TRACED = {"lstm": lambda x, hx, w: _lstm_op(x, hx[0], hx[1], *w), "rnn_tanh": lambda x, hx, w: _rnn_tanh_op(x, hx, *w),
           "rnn_relu": lambda x, hx, w: _rnn_relu_op(x, hx, *w)}


def _traced_kernel(mode, x, hx, weights, training):
    return _TRACED[mode](x, hx, weights)


@contextlib.contextmanager
def _recurrences_as_single_ops():
    saved = fused_recurrence.full_sequence_kernel
    fused_recurrence.full_sequence_kernel = _traced_kernel
    try:
        yield
    finally:
        fused_recurrence.full_sequence_kernel = saved


# each traced recurrence op as the torch-only function the generated file defines for it
_KERNEL_SOURCES = {
    "lstm": '''def _lstm(x, h0, c0, w_ih, w_hh, b_ih, b_hh):
    """An LSTM layer over full-length batch-first sequences (gates i, f, g, o): (batch, time, hidden)."""
    return torch.lstm(x, (h0, c0), [w_ih, w_hh, b_ih, b_hh], True, 1, 0.0, False, False, True)[0]
''',
    "rnn_tanh": '''def _rnn_tanh(x, h0, w_ih, w_hh, b_ih, b_hh):
    """A tanh RNN layer over full-length batch-first sequences: (batch, time, hidden)."""
    return torch.rnn_tanh(x, h0, [w_ih, w_hh, b_ih, b_hh], True, 1, 0.0, False, False, True)[0]
''',
    "rnn_relu": '''def _rnn_relu(x, h0, w_ih, w_hh, b_ih, b_hh):
    """A ReLU RNN layer over full-length batch-first sequences: (batch, time, hidden)."""
    return torch.rnn_relu(x, h0, [w_ih, w_hh, b_ih, b_hh], True, 1, 0.0, False, False, True)[0]
''',
}


def _identifier(name):
    name = re.sub(r"\W", "_", name)
    return name if name and not name[0].isdigit() else "v_" + name


def _init_lines(entries):
    """__init__ lines creating the nested containers and the tensors at their CNTK paths."""
    lines, made = [], set()
    for path, kind, shape, dtype in entries:
        parts = path.split(".")
        for k in range(1, len(parts)):
            prefix = ".".join(parts[:k])
            if prefix not in made:
                made.add(prefix)
                owner = "self" + "".join(".%s" % p for p in parts[:k - 1])
                lines.append("        %s.add_module(%r, torch.nn.Module())" % (owner, parts[k - 1]))
        owner = "self" + "".join(".%s" % p for p in parts[:-1])
        empty = "torch.zeros(%r, dtype=%s)" % (tuple(shape), dtype)
        if kind == "parameter":
            lines.append("        %s.register_parameter(%r, torch.nn.Parameter(%s))" % (owner, parts[-1], empty))
        else:
            lines.append("        %s.register_buffer(%r, %s)" % (owner, parts[-1], empty))
    return lines


def generate(function, source_name, weights_name):
    """(python source, state_dict) for ``function``."""
    t = Traceable(function)
    try:
        with t.context(), _recurrences_as_single_ops():
            program = torch.export.export(t.wrapper, tuple(t.examples), dynamic_shapes=t.dynamic_shapes)
    except Exception as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ValueError("export_torch: torch.export cannot trace this model with dynamic batch%s axes (%s: %s); "
                         "of recurrences, export_torch writes those torch's RNN kernels run (LSTM, tanh/ReLU RNN); "
                         "others run step by step, which torch.export fixes to one sequence length"
                         % ("/sequence" if t.sequence_dims else "", type(e).__name__, first)) from None
    program = program.run_decompositions({})
    signature = program.graph_signature
    state = program.state_dict
    constants = program.constants
    entries, call_args, weights = [], [], {}
    for spec in signature.input_specs:
        kind = spec.kind.name
        if kind == "USER_INPUT":
            continue
        target = spec.target
        path = target[len("module."):] if target.startswith("module.") else target
        value = state[target] if target in state else constants[target]
        entries.append((path, "parameter" if kind == "PARAMETER" else "buffer", tuple(value.shape), value.dtype))
        call_args.append("self." + path)
        weights[path] = value.detach().clone()
    body = program.graph_module.code
    body = re.sub(r"^\s*def forward\(self, ", "def _computation(", body.strip(), count=1)
    kernels = []
    for mode in _KERNEL_SOURCES:
        call = "torch.ops.cntk_compat_export.%s.default(" % mode
        if call in body:
            kernels.append(_KERNEL_SOURCES[mode] + "\n\n")
            body = body.replace(call, "_%s(" % mode)
    # dtype/device checks torch.export records for .to() calls: no-ops here, and they name torch's device type
    body = re.sub(r"\n\s*_assert_tensor_metadata\w* = torch\.ops\.aten\._assert_tensor_metadata\.default\(.*", "",
                  body)
    for bad in ("cntk", "fx_pytree", "pytree"):
        if re.search(r"\b%s" % bad, body):
            raise ValueError("export_torch: the traced computation still refers to %r; it cannot be written as "
                             "torch-only source" % bad)
    inputs = [_identifier(n) for n in t.input_names]
    seq_note = "; sequences: batch, time, ..." if t.sequence_dims else ""
    source = _HEADER % {"source": source_name, "weights": weights_name, "seq_note": seq_note,
                        "inputs": ", ".join("%s %s" % (n, tuple(a.shape)) for n, a in zip(t.input_names,
                                                                                         function.arguments)),
                        "outputs": ", ".join(t.output_names)}
    source += "".join(kernels) + body + "\n\n\nclass Model(torch.nn.Module):\n"
    source += "    def __init__(self):\n        super().__init__()\n"
    source += "\n".join(_init_lines(entries)) + ("\n" if entries else "        pass\n")
    source += "\n    def forward(self, %s):\n" % ", ".join(inputs)
    outputs = "_computation(%s)" % ", ".join(call_args + inputs)
    if len(t.output_names) == 1:
        source += "        return %s[0]\n" % outputs
    else:
        source += "        return %s\n" % outputs
    return source, weights


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m cntk_compat.export_torch",
                                     description="Write standalone PyTorch source (and its weights) for a model.")
    parser.add_argument("model", help="a model file (CNTK v2, this package's archive, or ONNX with --onnx)")
    parser.add_argument("out", help="the .py file to write; weights go next to it with the suffix .pt")
    parser.add_argument("--onnx", action="store_true", help="the model file is ONNX")
    args = parser.parse_args(argv)
    import cntk_compat as C
    fmt = C.ModelFormat.ONNX if args.onnx else C.ModelFormat.CNTKv2
    function = C.Function.load(args.model, format=fmt)
    weights_path = os.path.splitext(args.out)[0] + ".pt"
    source, weights = generate(function, os.path.basename(args.model), os.path.basename(weights_path))
    import io
    buffer = io.BytesIO()
    torch.save(weights, buffer)
    atomic_file.write_atomically(weights_path, buffer.getvalue(), "weights file")
    atomic_file.write_atomically(args.out, source.encode("utf-8"), "generated module")
    print("wrote %s and %s" % (args.out, weights_path))


if __name__ == "__main__":
    main()
