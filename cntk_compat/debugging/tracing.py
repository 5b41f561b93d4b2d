"""The computation network trace level and per-node timing (CNTK's debugging switches), on the lowered
torch modules.

A CNTK graph runs as one torch.fx module (core/lowering.py), so there are no per-node hooks. While a trace
level above 0 or node timing is on, a global torch forward hook catches every evaluation of such a module
and runs its fx graph a second time, node by node, on the same inputs (without autograd), reporting to
stderr per fx node (one per op; a recurrent loop counts as one node):

- level >= 1: once per module, each node's target and output shape;
- level >= 1000: on every forward, the sum of the absolute values of each node's output;
- level >= 1000000: on every forward, each node's full output;
- node timing: on every forward, each node's execution time in milliseconds.

Only forward values are traced (not gradients). The second run doubles the cost of a forward pass, as
CNTK's tracing also slowed it down: these are debugging aids.
"""
import sys
import time
import weakref

import torch
import torch.fx

from ..core.lowering import LoweredFunction

__all__ = ["set_computation_network_trace_level", "set_node_timing", "get_computation_network_trace_level"]

_settings = {"level": 0, "timing": False, "hook": None}
_described = weakref.WeakSet()  # modules whose static info (level 1) was printed


def _target_name(node):
    target = node.target
    return getattr(target, "__name__", str(target))


def _describe(value):
    return tuple(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__


class _TracingInterpreter(torch.fx.Interpreter):
    def __init__(self, module, level, timing, out):
        super(_TracingInterpreter, self).__init__(module)
        self.level, self.timing, self.out = level, timing, out
        self.describe_static = level >= 1 and module not in _described

    def run_node(self, n):
        if n.op in ("placeholder", "get_attr", "output"):
            return super(_TracingInterpreter, self).run_node(n)
        start = time.perf_counter()
        result = super(_TracingInterpreter, self).run_node(n)
        if self.timing:
            if isinstance(result, torch.Tensor) and result.is_cuda:
                torch.cuda.synchronize(result.device)
            elapsed_ms = (time.perf_counter() - start) * 1000.0
            self.out.write("  node timing %-30s %-24s %10.3f ms\n" % (n.name, _target_name(n), elapsed_ms))
        if self.describe_static:
            self.out.write("  %-30s %-24s shape %s\n" % (n.name, _target_name(n), _describe(result)))
        if isinstance(result, torch.Tensor) and self.level >= 1000:
            self.out.write("  %-30s abs sum %.9g\n" % (n.name, float(result.detach().abs().sum())))
            if self.level >= 1000000:
                self.out.write("%s\n" % (result.detach().cpu().numpy(),))
        return result


def _trace_forward(module, inputs, output):
    if not isinstance(module, LoweredFunction):
        return None
    gm = module.graph_module
    out = sys.stderr
    out.write("trace of %s (%s):\n" % (type(gm).__name__, ", ".join(module.output_uids)))
    interpreter = _TracingInterpreter(gm, _settings["level"], _settings["timing"], out)
    with torch.no_grad():
        interpreter.run(*inputs)
    if interpreter.describe_static:
        _described.add(gm)
    out.flush()
    return None


def _update_hook():
    wanted = _settings["level"] > 0 or _settings["timing"]
    hook = _settings["hook"]
    if wanted and hook is None:
        _settings["hook"] = torch.nn.modules.module.register_module_forward_hook(_trace_forward)
    elif not wanted and hook is not None:
        hook.remove()
        _settings["hook"] = None


def set_computation_network_trace_level(level):
    """0: no trace; 1: each node's shape (once); 1000: also each node's abs sum on every forward;
    1000000: also each node's full value. Written to stderr."""
    if isinstance(level, bool) or not isinstance(level, int) or level < 0:
        raise ValueError("set_computation_network_trace_level: level must be a non-negative int "
                         "(0, 1, 1000, 1000000), got %r" % (level,))
    _settings["level"] = level
    _update_hook()


def get_computation_network_trace_level():
    return _settings["level"]


def set_node_timing(enable):
    """Reports each node's execution time (ms) on every forward evaluation, to stderr."""
    if not isinstance(enable, bool):
        raise TypeError("set_node_timing: enable must be a bool, got %s" % type(enable).__name__)
    _settings["timing"] = enable
    _update_hook()
