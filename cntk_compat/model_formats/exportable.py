"""A Function as a module torch.export can trace: one tensor per argument, batch first, a dynamic batch axis
and, for sequence arguments, a dynamic sequence axis; all sequences of a call have full length (all-true masks).
Shared by the ONNX exporter and export_torch."""
import contextlib
import copy
import itertools

import torch


def export_name(v, taken):
    base = "".join(c if c.isalnum() or c in "_." else "_" for c in (v.name or v.uid)) or "v"
    name, k = base, 1
    while name in taken:
        k += 1
        name = "%s_%d" % (base, k)
    taken.add(name)
    return name


class FullSequences(torch.nn.Module):
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
def assume_full_sequences(module):
    from ..core.fused_recurrence import FusedRNN
    fused = [m for m in module.modules() if isinstance(m, FusedRNN)]
    for m in fused:
        m.sequences_are_full = True
    try:
        yield
    finally:
        for m in fused:
            m.sequences_are_full = False


def cpu_copy(module):
    """A copy of a lowered module on the CPU. A GraphModule's deep copy is rebuilt from its graph and keeps none
    of the lowering's own attributes (its mask axes...): they are carried over."""
    twin = copy.deepcopy(module)
    for key, value in vars(module).items():
        vars(twin).setdefault(key, value)
    return twin.cpu()


class Traceable(object):
    """wrapper (the module to trace), examples, dynamic_shapes (for the wrapper's *args), input_names,
    output_names, sequence_dims (axis name -> torch.export.Dim), and context() to trace under."""

    def __init__(self, function, example_length=3):
        arguments = list(function.arguments)
        module = function.torch_module(arguments)
        if any(t.device.type != "cpu" for t in itertools.chain(module.parameters(), module.buffers())):
            module = cpu_copy(module)   # traced on the CPU, as the examples are: what is written names no device
        if module.made_mask_axes:
            raise ValueError("export: the outputs lie on a sequence axis made inside the graph (%s); export covers "
                             "graphs whose outputs keep their inputs' axes" % ", ".join(module.made_mask_axes))
        taken = set()
        self.input_names = [export_name(a, taken) for a in arguments]
        self.output_names = [export_name(o, taken) for o in function.outputs]
        self.outputs = list(function.outputs)
        batch = torch.export.Dim("batch", min=1, max=1 << 20)
        self.sequence_dims = {}
        self.examples, dynamic = [], []
        for a in arguments:
            if a.shape is None or any(d < 0 for d in a.shape):
                raise ValueError("export: argument %s has an unknown shape %s" % (a.name or a.uid, a.shape))
            axes, lead = {0: batch}, (2,)
            if has_sequence_axis(a):
                name = sequence_axis_name(a)
                if name not in self.sequence_dims:
                    self.sequence_dims[name] = torch.export.Dim("seq_%d" % len(self.sequence_dims), min=1,
                                                                max=1 << 20)
                axes[1] = self.sequence_dims[name]
                lead = (2, example_length)
            self.examples.append(torch.randn(lead + tuple(a.shape)).to(_torch_dtype(a)))
            dynamic.append(axes)
        mask_args = []
        for axis_name in module.mask_axes:
            users = [k for k, a in enumerate(arguments) if has_sequence_axis(a) and sequence_axis_name(a) == axis_name]
            if not users:
                raise ValueError("export: no argument carries the sequence axis %s" % axis_name)
            mask_args.append(users[0])
        self.module = module
        self.wrapper = FullSequences(module, mask_args)
        self.dynamic_shapes = (tuple(dynamic),)

    def context(self):
        return assume_full_sequences(self.module)


def has_sequence_axis(v):
    return any(ax.is_sequence_axis for ax in v.dynamic_axes)


def sequence_axis_name(v):
    return [ax.name for ax in v.dynamic_axes if ax.is_sequence_axis][0]


def _torch_dtype(v):
    from ..core.dtypes import to_torch_dtype
    return to_torch_dtype(v.dtype)
