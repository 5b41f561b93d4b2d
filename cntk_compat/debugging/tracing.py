"""The computation network trace level and per-node timing (CNTK's debugging switches), on the lowered
torch modules.

A CNTK graph runs as one torch.fx module (core/lowering.py), so there are no per-node hooks. While a trace
level above 0 or node timing is on, a global torch forward hook catches every evaluation of such a module
and runs its fx graph a second time, node by node, on the same inputs. The trace level reports to stderr per
fx node (one per op; a recurrent loop counts as one node):

- level >= 1: once per module, each node's target and output shape;
- level >= 1000: on every forward, the sum of the absolute values of each node's output;
- level >= 1000000: on every forward, each node's full output.

Node timing prints nothing while it runs: it adds each primitive's forward time, and (through hooks on the
autograd nodes its computation created) its backward time, to core.node_timing, which ``print_node_timing``
of a Trainer, Evaluator or Function reports as CNTK's table. For that, the timed run replaces the module's
output, so that gradients flow through it.

Only forward values are traced (not gradients). The second run doubles the cost of a forward pass, as
CNTK's tracing also slowed it down: these are debugging aids. It changes nothing, as in CNTK: it starts from the
state the module's own forward started from (the random nodes' engines, the running statistics of batch
normalization and the other constants updated in place, saved by a pre-hook) and works on copies of it, so its
dropout masks and statistics are those of the real pass, and the model's state after the pass is the real pass's
(before, dropout drew twice and the running statistics were updated twice per traced forward).
"""
import copy
import sys
import time
import weakref

import torch
import torch.fx

from ..core import node_timing
from ..core import lowering
from ..core.lowering import LoweredFunction
from ..core.random_stream import RandomStream, set_stream_state, stream_state

__all__ = ["set_computation_network_trace_level", "set_node_timing", "get_computation_network_trace_level"]

_settings = {"level": 0, "timing": False, "hook": None, "pre_hook": None}
_saved = weakref.WeakKeyDictionary()  # module -> its state before its forward (see _save_state)
_described = weakref.WeakSet()  # modules whose static info (level 1) was printed


def _target_name(node):
    target = node.target
    return getattr(target, "__name__", str(target))


def _describe(value):
    return tuple(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__


def _output_tensors(result):
    if isinstance(result, torch.Tensor):
        return [result]
    if isinstance(result, (tuple, list)):
        return [t for r in result for t in _output_tensors(r)]
    return []


class _BackwardTimer(object):
    """Times the autograd nodes that one primitive's forward computation created, and counts the backward
    passes that ran them (once per forward: each timed forward graph is differentiated at most once)."""

    def __init__(self, uid):
        self.uid, self.counted, self.started = uid, False, None

    def attach(self, grad_fn):
        grad_fn.register_prehook(self._before)
        grad_fn.register_hook(self._after)

    def _before(self, grad_outputs):
        self.started = time.perf_counter()

    def _after(self, grad_inputs, grad_outputs):
        elapsed = time.perf_counter() - self.started
        node_timing.add_backward(self.uid, elapsed, 0 if self.counted else 1)
        self.counted = True


class _TracingInterpreter(torch.fx.Interpreter):
    def __init__(self, module, level, timing, out):
        super(_TracingInterpreter, self).__init__(module)
        self.level, self.timing, self.out = level, timing, out
        self.describe_static = level >= 1 and module not in _described
        self.forward_seconds = {}
        self.seen_grad_fns = {}  # id -> autograd node (kept alive so that no id is reused)

    def _time_backward(self, uid, result):
        """Hooks the autograd nodes that computing ``result`` created (those not reached before)."""
        timer = None
        pending = [t.grad_fn for t in _output_tensors(result) if t.grad_fn is not None]
        while pending:
            fn = pending.pop()
            if fn is None or id(fn) in self.seen_grad_fns or type(fn).__name__ == "AccumulateGrad":
                continue
            self.seen_grad_fns[id(fn)] = fn
            timer = timer or _BackwardTimer(uid)
            timer.attach(fn)
            pending.extend(next_fn for next_fn, _ in fn.next_functions)

    def run_node(self, n):
        if n.op in ("placeholder", "get_attr", "output"):
            result = super(_TracingInterpreter, self).run_node(n)
            if self.timing:  # leaves' autograd nodes are not any primitive's backward
                self.seen_grad_fns.update((id(t.grad_fn), t.grad_fn) for t in _output_tensors(result)
                                          if t.grad_fn is not None)
            return result
        start = time.perf_counter()
        result = super(_TracingInterpreter, self).run_node(n)
        uid = n.meta.get("cntk_uid")
        if self.timing:
            for t in _output_tensors(result):
                if t.is_cuda:
                    torch.cuda.synchronize(t.device)
            if uid is not None:
                self.forward_seconds[uid] = self.forward_seconds.get(uid, 0.0) + time.perf_counter() - start
                if torch.is_grad_enabled():
                    self._time_backward(uid, result)
        if self.describe_static:
            self.out.write("  %-30s %-24s shape %s\n" % (n.name, _target_name(n), _describe(result)))
        if isinstance(result, torch.Tensor) and self.level >= 1000:
            self.out.write("  %-30s abs sum %.9g\n" % (n.name, float(result.detach().abs().sum())))
            if self.level >= 1000000:
                self.out.write("%s\n" % (result.detach().cpu().numpy(),))
        return result


def _random_streams(module):
    return [m for m in module.modules() if isinstance(m, RandomStream)]


def _save_state(module, inputs):
    """Forward pre-hook: what the module's forward may change in place (its constants, such as batch
    normalization's running statistics, and its random nodes' engines), copied before the forward runs."""
    if isinstance(module, LoweredFunction) and (getattr(module, "trace_level", 0) > 0 or _settings["timing"]):
        buffers = {name: b.detach().clone() for name, b in module.named_buffers()}
        streams = [(s, copy.deepcopy(stream_state(s))) for s in _random_streams(module)]
        _saved[module] = (buffers, streams)
    return None


def _owner_and_name(module, path):
    owner, _, name = path.rpartition(".")
    return (module.get_submodule(owner) if owner else module), name


def _replay(module, run):
    """``run()`` from the state the module's forward started from, on copies of it; afterwards the module
    holds the state its own forward left."""
    saved = _saved.pop(module, None)
    if saved is None:
        return run()
    buffers, streams = saved
    after_buffers = []
    for path, before in buffers.items():
        owner, name = _owner_and_name(module, path)
        after_buffers.append((owner, name, owner._buffers[name]))
        owner._buffers[name] = before
    after_streams = [(s, stream_state(s)) for s, _ in streams]
    for s, before in streams:
        set_stream_state(s, before)
    try:
        return run()
    finally:
        for owner, name, tensor in after_buffers:
            owner._buffers[name] = tensor
        for s, state in after_streams:
            set_stream_state(s, state)


def _trace_forward(module, inputs, output):
    if not isinstance(module, LoweredFunction):
        return None
    gm = module
    level, timing = getattr(gm, "trace_level", 0), _settings["timing"]   # the level it was compiled with
    if level == 0 and not timing:
        return None
    out = sys.stderr
    if level > 0:
        out.write("trace of %s (%s):\n" % (type(gm).__name__, ", ".join(module.output_uids)))
    interpreter = _TracingInterpreter(gm, level, timing, out)
    with torch.set_grad_enabled(timing and torch.is_grad_enabled()):
        result = _replay(gm, lambda: interpreter.run(*inputs))
    if interpreter.describe_static:
        _described.add(gm)
    out.flush()
    for uid, seconds in interpreter.forward_seconds.items():
        node_timing.add_forward(uid, seconds, 1)
    return result if timing else None


def _update_hook():
    wanted = _settings["level"] > 0 or _settings["timing"] or len(lowering.TRACED) > 0
    hook = _settings["hook"]
    if wanted and hook is None:
        _settings["pre_hook"] = torch.nn.modules.module.register_module_forward_pre_hook(_save_state)
        _settings["hook"] = torch.nn.modules.module.register_module_forward_hook(_trace_forward)
    elif not wanted and hook is not None:
        hook.remove()
        _settings["pre_hook"].remove()
        _settings["hook"] = _settings["pre_hook"] = None
        _saved.clear()


def set_computation_network_trace_level(level):
    """0: no trace; 1: each node's shape (once); 1000: also each node's abs sum on every forward;
    1000000: also each node's full value. Written to stderr. As in CNTK 2.7, a network keeps the level set when
    it was compiled (first evaluated or trained): one compiled before traces nothing, one compiled at a level
    keeps tracing at it after the level is set back."""
    if isinstance(level, bool) or not isinstance(level, int) or level < 0:
        raise ValueError("set_computation_network_trace_level: level must be a non-negative int "
                         "(0, 1, 1000, 1000000), got %r" % (level,))
    _settings["level"] = level
    lowering.TRACE_LEVEL[0] = level     # for the networks compiled from now on (see core.lowering.TRACE_LEVEL)
    _update_hook()


def get_computation_network_trace_level():
    return _settings["level"]


def set_node_timing(enable):
    """Collects each node's forward and backward execution times while on; ``print_node_timing`` (of a
    Trainer, Evaluator or Function) reports them."""
    if not isinstance(enable, bool):
        raise TypeError("set_node_timing: enable must be a bool, got %s" % type(enable).__name__)
    _settings["timing"] = enable
    _update_hook()
