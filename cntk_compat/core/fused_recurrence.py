"""Recurrent loops that are an LSTM (or a plain tanh / relu RNN step) run as ONE call of torch's fused RNN kernel:
over packed sequences, or, on the CPU where that is faster (mkldnn runs full float32 sequences, packed ones are a
loop of per-step ops), over the padded batch with each sequence starting at step 0 (_pads_on_mkldnn).

The loop is recognized by its math, read from the ops' registry data (OpDef.algebra), not by the layer that
built it: a loop of two delays (time_step 1, same direction) of h and c with

    G = x·W + h_prev·H [+ b]                   (any order of the terms; b without dynamic axes)
    i, g, f, o = four consecutive slices of G along its (only) static axis, of the size of h
    c = sigmoid(f) * c_prev + sigmoid(i) * tanh(g)
    h = sigmoid(o) * tanh(c)

is CNTK's LSTM with default settings (cntk.layers.LSTM builds exactly this, and so does the same cell written
with the graph API). A loop of one delay of h with h = tanh(x·W + h_prev·H [+ b]) (or relu) is CNTK's RNNStep with
that activation, which is what torch's rnn_tanh (rnn_relu) kernel computes; RNNStep's default activation, sigmoid,
has no kernel and stays on the step loop. The Parameters stay CNTK's: the gate blocks (i, g, f, o) are reordered into torch's
(i, f, g, o) at call time, inside autograd, so gradients, learners, save/load and ``.value`` do not change.

Anything else runs on the generic step loop (core.recurrence), which is also the fallback:
- peepholes, self-stabilization, a projection (cell_shape), other activations: the math differs from the pattern;
- a delay with time_step other than 1, or a sequence as initial state;
- loop values other than h read outside the loop (return_full_state reads c's sequence, which the kernel does
  not return);
- truncated BPTT (sequences continuing from the previous minibatch: carried state) at run time.
"""
import warnings
import weakref

import numpy as np
import torch

from .device import copy_to
from .initial_state import initial_state_steps
from .sequence_masks import first_step, host_lengths_record, last_step


# cuDNN copies weights that are not views of one buffer into one at every call, and torch warns about it (once).
# The weights handed to it here are made at every call anyway (CNTK's layout turned into torch's, through
# autograd), so that copy is the price of keeping the Parameters CNTK's; the warning would only alarm users.
warnings.filterwarnings("ignore", message="RNN module weights are not part of single contiguous chunk of memory")

_ENABLED = [True]


def fused_kernels_enabled():
    return _ENABLED[0]


class use_fused_kernels(object):
    """``with use_fused_kernels(False):`` lowers every recurrence on the generic step loop (to compare, or to
    debug); the lowering cache keeps the two kinds of modules apart."""

    def __init__(self, enabled):
        self.enabled = bool(enabled)

    def __enter__(self):
        self.previous = _ENABLED[0]
        _ENABLED[0] = self.enabled
        return self

    def __exit__(self, *exc):
        _ENABLED[0] = self.previous
        return False


class _Expr(object):
    """A value of the loop as the matcher sees it: the op's algebra (None: a leaf or an op it does not know), the
    primitive node, the operand expressions (sums and products flattened), the Variable (only when the
    lowering can compute it outside the step: a leaf or a variable outside every block), and whether it
    depends on a delayed value of the loop."""
    __slots__ = ("algebra", "node", "args", "var", "in_loop")

    def __init__(self, algebra, node, args, var, in_loop):
        self.algebra, self.node, self.args, self.var, self.in_loop = algebra, node, args, var, in_loop


class _Resolver(object):
    """Expressions of the loop's values: loop members (and the insides of member blocks) are followed; a value
    computed outside the loop is a leaf, or, when it is a matmul or a slice, one level of it (x·W computed
    outside, a slice of an input projection computed outside)."""

    def __init__(self, loop):
        self.delay_outputs = {d._outputs[0].uid: d for d in loop.delays}
        self.members = {id(n) for n in loop.nodes}
        self.memo = {}

    def expr(self, v, context=None):
        key = (v.uid, id(context))
        if key not in self.memo:
            self.memo[key] = None  # a cycle that does not pass a delay of this loop: opaque
            self.memo[key] = self._expr(v, context)
        return self.memo[key] or _Expr(None, None, (), None, True)

    def _expr(self, v, context):
        if context is not None and v.uid in context:  # a block's placeholder: its argument outside
            outer, outer_context = context[v.uid]
            return self.expr(outer, outer_context)
        addressable = v if (context is None or not v.is_output) else None
        if v.uid in self.delay_outputs:
            return _Expr(None, self.delay_outputs[v.uid], (), addressable, True)
        if not v.is_output:
            return _Expr(None, None, (), addressable, False)
        node = v.owner
        if context is None and id(node) not in self.members:
            if node._op.algebra in ("matmul", "slice"):
                args = tuple(_Expr(None, None, (), i, False) for i in node._inputs)
                return _Expr(node._op.algebra, node, args, v, False)
            return _Expr(None, None, (), v, False)
        if node._block_root is not None:
            inner_context = {ph.uid: (outer, context) for ph, outer in node._block_arguments}
            inner = node._block_root._outputs[node._outputs.index(v)]
            e = self.expr(inner, inner_context)
            return _Expr(e.algebra, e.node, e.args, addressable, e.in_loop)
        algebra = node._op.algebra
        if algebra == "identity":
            e = self.expr(node._inputs[0], context)
            return _Expr(e.algebra, e.node, e.args, addressable or e.var, e.in_loop)
        if algebra is None:
            # an op the matcher does not know: opaque; if it reads the loop, the loop is no LSTM
            in_loop = any(self.expr(i, context).in_loop for i in node._inputs)
            return _Expr(None, node, (), addressable, in_loop)
        args = [self.expr(i, context) for i in node._inputs]
        if algebra in ("add", "mul"):  # flatten sums and products
            flat = []
            for a in args:
                flat.extend(a.args if a.algebra == algebra else [a])
            args = flat
        return _Expr(algebra, node, tuple(args), addressable, any(a.in_loop for a in args))


def _static_shape(var):
    return tuple(var._shape) if var is not None and var._shape is not None else None


def _slice_block(e, gates, dim):
    """k if e is the k-th block of ``dim`` rows of ``gates`` along its only static axis, else None."""
    if e.algebra != "slice" or e.args[0].node is not gates.node:
        return None
    attrs = e.node._attributes
    if tuple(attrs.get("strides", (1,))) != (1,) or tuple(attrs["axes"]) not in ((0,), (-1,)):
        return None
    begin, end = attrs["begins"][0], attrs["ends"][0]
    if begin % dim or end != begin + dim:
        return None
    return begin // dim


def _unary(e, algebra):
    return e.args[0] if e.algebra == algebra and len(e.args) == 1 else None


def _split_pair(e, test):
    """(a, b) of a product of two factors where test(a) holds, else None."""
    if e.algebra != "mul" or len(e.args) != 2:
        return None
    a, b = e.args
    if test(a):
        return a, b
    if test(b):
        return b, a
    return None


class LSTMMatch(object):
    """What the fused kernel needs: Variables of x, W, H, b (or None) and the delays (c_delay None for a plain
    RNN); mode: torch's kernel ("lstm", "rnn_tanh" or "rnn_relu")."""

    def __init__(self, h_delay, c_delay, x, W, H, b, dim, mode="lstm"):
        self.h_delay, self.c_delay = h_delay, c_delay
        self.x, self.W, self.H, self.b, self.dim, self.mode = x, W, H, b, dim, mode


def match_rnn(loop):
    """An LSTMMatch of mode rnn_tanh / rnn_relu if the loop is h = tanh|relu(x·W + h_prev·H [+ b]), else None."""
    if not _ENABLED[0] or len(loop.delays) != 1 or loop.delays[0]._attributes.get("time_step") != 1:
        return None
    delay = loop.delays[0]
    shape = _static_shape(delay._outputs[0])
    h = _Resolver(loop).expr(delay._inputs[0])
    if shape is None or len(shape) != 1 or h.algebra not in ("tanh", "relu") or len(h.args) != 1 or \
            h.args[0].algebra != "add":
        return None
    found = _match_gates(h.args[0], delay, None, shape[0], 1)
    if found is not None:
        found.mode = "rnn_" + h.algebra
    return found


def match_lstm(loop):
    """An LSTMMatch if the loop computes CNTK's default LSTM (see the module docstring), else None."""
    if not _ENABLED[0] or len(loop.delays) != 2 or any(d._attributes.get("time_step") != 1 for d in loop.delays):
        return None
    resolver = _Resolver(loop)
    for h_delay, c_delay in (loop.delays, loop.delays[::-1]):
        found = _match_assignment(resolver, h_delay, c_delay)
        if found is not None:
            return found
    return None


def _match_assignment(resolver, h_delay, c_delay):
    h, c = resolver.expr(h_delay._inputs[0]), resolver.expr(c_delay._inputs[0])
    # h = sigmoid(o) * tanh(c)
    pair = _split_pair(h, lambda a: a.algebra == "sigmoid")
    if pair is None or _unary(pair[1], "tanh") is None or _unary(pair[1], "tanh").node is not c.node:
        return None
    o_pre = _unary(pair[0], "sigmoid")
    # c = sigmoid(f) * c_prev + sigmoid(i) * tanh(g)
    if c.algebra != "add" or len(c.args) != 2:
        return None
    forget = input_gate = None
    for term in c.args:
        keep = _split_pair(term, lambda a: a.algebra is None and a.node is c_delay)
        if keep is not None and _unary(keep[1], "sigmoid") is not None:
            forget = _unary(keep[1], "sigmoid")
            continue
        new = _split_pair(term, lambda a: a.algebra == "tanh")
        if new is not None and _unary(new[1], "sigmoid") is not None:
            input_gate = (_unary(new[1], "sigmoid"), _unary(new[0], "tanh"))
    if forget is None or input_gate is None:
        return None
    gates = o_pre.args[0] if o_pre.algebra == "slice" else None
    shape = _static_shape(h_delay._outputs[0])
    if gates is None or shape is None or len(shape) != 1 or gates.algebra != "add":
        return None
    dim = shape[0]
    blocks = [_slice_block(e, gates, dim) for e in (input_gate[0], input_gate[1], forget, o_pre)]
    if blocks != [0, 1, 2, 3]:
        return None
    return _match_gates(gates, h_delay, c_delay, dim, 4)


def _match_gates(gates, h_delay, c_delay, dim, blocks):
    """G = x·W + h_prev·H [+ b] with W (in, blocks dim), H (dim, blocks dim), b (blocks dim,) and nothing else."""
    x = W = H = b = None
    for term in gates.args:
        if term.algebra == "matmul" and term.node._attributes.get("output_rank") == 1:
            left, right = term.args
            if right.in_loop or right.var is None or right.var._n_dynamic or len(right.var._shape) != 2:
                return None
            if left.algebra is None and left.node is h_delay:
                if H is not None or tuple(right.var._shape) != (dim, blocks * dim):
                    return None
                H = right.var
            elif not left.in_loop and left.var is not None and x is None:
                if tuple(right.var._shape)[1] != blocks * dim or len(left.var._shape) != 1:
                    return None
                x, W = left.var, right.var
            else:
                return None
        elif not term.in_loop and term.var is not None and b is None and term.var._n_dynamic == 0 and \
                tuple(term.var._shape) == (blocks * dim,):
            b = term.var
        else:
            return None
    if x is None or H is None or x._sequence_axis is None:
        return None
    dtypes = {v._dtype for v in (x, W, H, b) if v is not None}
    if len(dtypes) != 1:
        return None
    return LSTMMatch(h_delay, c_delay, x, W, H, b, dim)


def _gate_order(m):
    """Row blocks (a, b, c, d) of m (contiguous or not) as (a, c, b, d), contiguous: CNTK's gate order (i, g, f, o)
    <-> torch's (i, f, g, o), an exchange that is its own inverse. One native op, an index_select by a row index
    kept per size and device, so under autograd the backward pass is one C++ node too (index_select_backward:
    the gradient's rows put back, into zeros) with no Python Function in between, and a training step pays one
    dispatch each way per weight. Traced graphs (torch.export, ONNX, torch.compile) get the same exchange as a
    view as (2, 2, rows/4, ...) with its first two axes swapped, then one copy: plain ops, no state."""
    n = m.shape[0]
    if torch.compiler.is_compiling():
        return m.reshape((2, 2, n // 4) + tuple(m.shape[1:])).transpose(0, 1).reshape(m.shape)
    key = (n, m.device)
    index = _EXCHANGE.get(key)
    if index is None:
        d = n // 4
        rows = torch.arange(n).reshape(2, 2, d).transpose(0, 1).reshape(n)
        index = _EXCHANGE[key] = copy_to(rows, m.device)
    return m.index_select(0, index)


_EXCHANGE = {}  # (rows, device) -> the row index of _gate_order's exchange


class _KernelLayout(torch.autograd.Function):
    """A CNTK weight matrix (input, blocks·dim) as torch's kernel takes it: (blocks·dim, input), contiguous, with
    LSTM gate blocks in torch's order when ``gates``.

    Used for matrices not stored for the kernel (computed, a Constant, a Parameter kept in its plain layout
    under DistributedDataParallel): they pay a 2-D transpose copy in each direction, and the parameter gets a
    gradient with its own (contiguous) layout. A Parameter that a fused loop reads is stored transposed
    (``store_for_kernel``): its memory is then the kernel's (blocks·dim, input) rows already, and kernel_layout
    exchanges its gate blocks with native ops instead (``_gate_order``: one copy each way, and the parameter's
    gradient is the transposed view of the exchanged kernel gradient, with the parameter's own strides).
    autograd's own backward of ``cat(split(W)).t().contiguous()`` on a plain matrix would gather strided column
    blocks instead, about twice the time."""

    @staticmethod
    def forward(ctx, W, gates):
        ctx.gates = gates
        rows = W.t()
        ctx.stored_transposed = rows.is_contiguous()
        if not ctx.stored_transposed:
            rows = rows.contiguous()
        return _gate_order(rows) if gates else rows

    @staticmethod
    def backward(ctx, grad):
        if ctx.gates:
            grad = _gate_order(grad)
        return (grad.t() if ctx.stored_transposed else grad.t().contiguous()), None


def store_for_kernel(var):
    """Stores Parameter ``var`` (a 2-D weight a fused loop reads) transposed in memory: the same tensor object,
    shape, values and version, strides (1, rows). Its memory is then the layout of torch's RNN kernels, so no
    call transposes it (see kernel_layout). Nothing else changes for its users: ``.value``, learners (their
    state follows the parameter's strides), checkpoints and every other op read it by shape. Constants and
    computed weights are left alone."""
    if not getattr(var, "is_parameter", False) or _distributed():
        return
    t = var.tensor
    if t.dim() != 2 or t.shape[0] < 2 or t.t().is_contiguous():
        return
    with torch.no_grad():
        # .data keeps the tensor object and its version: graphs already recorded that saved it read the
        # same values through the new strides
        t.data = t.t().contiguous().t()


def _distributed():
    """Whether a process group is running: DistributedDataParallel lays its gradient buckets out by the
    parameters' strides when it wraps them (and again when it rebuilds them), and the gradient hooks read those
    buckets as flat views, so parameters keep their layout there (distributed.data_parallel restores it before wrapping)."""
    return torch.distributed.is_available() and torch.distributed.is_initialized()


def kernel_layout(W, gates, cache=None, slot=None):
    """W (input, blocks·dim) in the layout of torch's kernel: (blocks·dim, input), contiguous, with LSTM gate
    blocks in torch's order when ``gates``. A weight stored for the kernel (store_for_kernel) is its transposed
    view, exchanged by ``_gate_order`` (one copy each way, as native autograd ops); any other matrix goes through
    _KernelLayout. Where no gradient is recorded the result is kept in ``cache[slot]`` while W's tensor, storage
    and version are unchanged (a learner's update or ``.value = `` bumps the version), so inference relays out
    each weight once per parameter version."""
    if torch.compiler.is_compiling():  # traced (torch.export, ONNX, torch.compile): plain ops, no state
        out = W.t().contiguous()
        return _gate_order(out) if gates else out
    rows = W.t()
    stored = rows.is_contiguous()
    if not gates and stored:
        return rows  # stored for the kernel: a view, whose gradient is a view with the parameter's strides
    if torch.is_grad_enabled() and W.requires_grad:
        return _gate_order(rows) if stored else _KernelLayout.apply(W, gates)
    if cache is not None:
        key = (W._version, W.data_ptr(), W.dtype, W.device)
        held = cache.get(slot)
        if held is not None and held[0]() is W and held[1] == key:
            return held[2]
    out = rows.contiguous()
    out = _gate_order(out) if gates else out
    if cache is not None:
        cache[slot] = (weakref.ref(W), key, out)
    return out


def _packed_rows(lengths, steps, backward, device):
    """Where each row of torch's packed layout comes from in a (batch, steps) grid flattened to batch·steps rows:
    (index, batch_sizes, order, unsort). Packed rows are step-major and, within a step, the sequences still
    running in descending length (``order``, stable; ``unsort`` its inverse); for a backward loop step t of
    sequence b reads its step lengths[b] - 1 - t, so the packed input is the reversed sequence. One index_select
    of the padded input packs it (reversing it too), one index_copy of the kernel's result to the same rows
    unpacks it: two copies where pack_padded_sequence, the unpacking and the reversals otherwise copy the data
    five times. Worked out on the host (numpy, from the host's lengths, a numpy array), index, order and unsort
    reach ``device`` in one copy; batch_sizes stays on the host, where the kernel reads it."""
    order = np.argsort(-lengths, kind="stable")
    sorted_lengths = lengths[order]
    t = np.arange(steps)[:, None]
    running = sorted_lengths[None, :] > t                                   # (steps, batch), packed order
    step = sorted_lengths[None, :] - 1 - t if backward else np.broadcast_to(t, running.shape)
    index = (order[None, :] * steps + step)[running]
    unsort = np.empty_like(order)
    unsort[order] = np.arange(order.size)
    rows = copy_to(torch.from_numpy(np.concatenate([index, order, unsort]).astype(np.int64)), device)
    k, b = index.size, order.size
    return rows[:k], torch.from_numpy(running.sum(1).astype(np.int64)), rows[k:k + b], rows[k + b:]


def _reversal_index(lengths, steps, device):
    """Per sequence the index that reverses its first lengths[b] steps (padding stays in place)."""
    t = torch.arange(steps, device=device)[None, :]
    n = lengths[:, None]
    return torch.where(t < n, n - 1 - t, t)


def _full_sequence_kernel(mode, x, hx, weights, training):
    """torch's RNN kernel ``mode`` ("lstm", "rnn_tanh", "rnn_relu") over full-length sequences: x (B, T, in), hx
    (1, B, dim) or the LSTM's (h, c) pair, weights [w_ih, w_hh, b_ih, b_hh] -> (B, T, dim)."""
    return getattr(torch._VF, mode)(x, hx, weights, True, 1, 0.0, training, False, True)[0]


# what FusedRNN calls for full-length sequences; export_torch swaps in ops torch.export keeps whole (the kernels'
# own decompositions would fix the sequence length)
full_sequence_kernel = _full_sequence_kernel


_ZEROS = {}


def _zeros(n, like):
    """A zero vector of n elements of ``like``'s dtype and device, made once (the kernel's second bias, which
    CNTK's cells do not have): constant, read by the kernel, never written."""
    if torch.compiler.is_compiling():
        return like.new_zeros(n)
    key = (n, like.dtype, like.device)
    z = _ZEROS.get(key)
    if z is None:
        z = _ZEROS[key] = torch.zeros(n, dtype=like.dtype, device=like.device)
    return z


def _one_chunk(weights):
    """The kernel's weights as views of one new buffer, in cuDNN's order (input weights, recurrent weights,
    their biases): cuDNN reads such weights in place, where separate tensors make it lay out a buffer of its own
    at every call (a query and a copy per gate matrix, forward and backward). One copy each way: split, not
    slicing, so that the backward pass joins the weights' gradients in one op (a slice's backward would make a
    zero buffer of the whole chunk per weight)."""
    flat = torch.cat([w.reshape(-1) for w in weights])
    return [part.view(w.shape) for part, w in zip(flat.split([w.numel() for w in weights]), weights)]


class FusedRNN(torch.nn.Module):
    """forward(mask, slots, x, W, H, b, init_h, init_c, *generic_externals) -> (B, T, dim) sequence of h.

    mode: torch's kernel, "lstm", "rnn_tanh" or "rnn_relu" (init_c is None for the last two); generic: the
    step-loop module of the same loop (RecurrentLoop), used when sequences continue from the previous minibatch
    (truncated BPTT: its carried state lives there); generic_index: the position of h among its outputs."""

    def __init__(self, dim, backward, init_dynamic, has_bias, dtype, generic, generic_index, mode="lstm"):
        super(FusedRNN, self).__init__()
        self.dim, self.backward, self.init_dynamic, self.has_bias = dim, backward, init_dynamic, has_bias
        self.dtype, self.mode = dtype, mode
        self.kernel = getattr(torch._VF, mode)
        self.generic, self.generic_index = generic, generic_index
        # set while exporting a graph whose callers feed only equal-length sequences (all-true masks): the
        # mask is then not read, so no data-dependent branch enters the traced graph
        self.sequences_are_full = False
        # the weights in the kernel's layout while they are unchanged, for calls that record no gradient
        self._layout_cache = {}
        self._init_cache = {}  # constant initial states in the kernel's layout (_initial_state)

    def __getstate__(self):
        """Pickled without the caches (they hold weak references, and are made again at the first call)."""
        state = dict(self.__dict__)
        state["_layout_cache"], state["_init_cache"] = {}, {}
        return state

    def _weights(self, W, H, b):
        lstm = self.mode == "lstm"
        w_ih = kernel_layout(W, lstm, self._layout_cache, 0)
        w_hh = kernel_layout(H, lstm, self._layout_cache, 1)
        zeros = _zeros(4 * self.dim if lstm else self.dim, w_ih)
        if self.has_bias:
            b_ih = _gate_order(b) if lstm else b
        else:
            b_ih = zeros
        return [w_ih, w_hh, b_ih, zeros]

    def _initial_state(self, init, which, batch):
        """The initial state ``which`` (0: h, 1: c) as the kernel takes it, (1, B, dim) contiguous, and whether it
        is one value for every sequence. A constant one (no dynamic axis, no gradient: the usual zeros) is laid
        out once and kept while it is unchanged (its tensor, storage and version), like the weights' layout."""
        dynamic = self.init_dynamic[which]
        constant = not dynamic and not init.requires_grad and not torch.compiler.is_compiling()
        if constant:
            key = (init._version, init.data_ptr(), init.dtype, init.device, batch)
            held = self._init_cache.get(which)
            if held is not None and held[0]() is init and held[1] == key:
                return held[2], True
        # contiguous: an exported graph's loop carries the states with their strides
        out = initial_state_steps(init, dynamic, batch, 1, (self.dim,), self.dtype)[:, 0][None].contiguous()
        if constant:
            self._init_cache[which] = (weakref.ref(init), key, out)
        return out, not dynamic

    def forward(self, mask, slots, x, W, H, b, init_h, init_c, *generic_externals, final_state=False):
        """final_state (set by use_final_states): return only each sequence's final h, (B, dim) -- what
        sequence.last of a forward loop (sequence.first of a backward one) reads -- which the kernel returns
        itself, instead of the (B, T, dim) sequence."""
        if final_state and ((slots is not None and not self.backward) or torch.compiler.is_compiling()):
            # carried state runs the step loop; traced graphs keep the sequence kernel: pick the step from the
            # sequence as the op would
            out = self.forward(mask, slots, x, W, H, b, init_h, init_c, *generic_externals)
            return first_step(out, mask) if self.backward else last_step(out, mask)
        if slots is not None and not self.backward:
            return self.generic(mask, slots, *generic_externals)[self.generic_index]
        batch, steps = mask.shape[0], mask.shape[1]
        if steps == 0:
            raise ValueError("a recurrent loop cannot run over empty sequences")
        lstm = self.mode == "lstm"
        h0, shared_h = self._initial_state(init_h, 0, batch)
        c0, shared_c = self._initial_state(init_c, 1, batch) if lstm else (None, True)
        return self._run(mask, x, (h0, c0) if lstm else h0, shared_h and shared_c, self._weights(W, H, b), 1,
                         final_state)

    def _run(self, mask, x, hx, shared, weights, layers, final_state):
        """The kernel over ``layers`` stacked layers of this loop's kind (hx, weights: all layers'; shared: the
        initial states are one value for every sequence): the top layer's (B, T, dim) sequence, or its final
        states."""
        if weights[0].is_cuda and not torch.compiler.is_compiling():
            weights = _one_chunk(weights)
        batch, steps = mask.shape[0], mask.shape[1]
        if x.dtype != self.dtype:
            x = x.to(self.dtype)
        record = None if self.sequences_are_full else host_lengths_record(mask)
        full = record is None or record.full
        if not full and _pads_on_mkldnn(self.mode, x, record, self.dim):
            return self._padded(x, hx, weights, layers, mask, record, final_state)
        if not full:
            index, batch_sizes, order, unsort = _packed_rows(record.array, steps, self.backward, x.device)
            data = x.reshape((batch * steps,) + tuple(x.shape[2:])).index_select(0, index)
            if not shared:  # a state that is one value for every sequence needs no sorting
                hx = tuple(h.index_select(1, order) for h in hx) if isinstance(hx, tuple) else \
                    hx.index_select(1, order)
            result = self.kernel(data, batch_sizes, hx, weights, True, layers, 0.0, self.training, False)
            if final_state:  # the top layer's final h per sequence, in the packed (length-sorted) order
                return result[1][-1].index_select(0, unsort)
            return result[0].new_zeros((batch * steps, self.dim)).index_copy(0, index, result[0]) \
                .view(batch, steps, self.dim)
        if self.backward:
            x = x.flip(1)
        if final_state:
            return self.kernel(x, hx, weights, True, layers, 0.0, self.training, False, True)[1][-1]
        out = self._sequence_kernel(x, hx, weights, layers)
        return out.flip(1) if self.backward else out

    def _sequence_kernel(self, x, hx, weights, layers):
        if layers == 1:
            return full_sequence_kernel(self.mode, x, hx, weights, self.training)
        return self.kernel(x, hx, weights, True, layers, 0.0, self.training, False, True)[0]

    def _padded(self, x, hx, weights, layers, mask, lengths, final_state):
        """Sequences of different lengths (``lengths``: the mask's HostLengths) through the full-sequence kernel
        (see _pads_on_mkldnn): each sequence starts at step 0 (a backward loop's reversed per sequence first), so
        its steps never read the padding after its end; the padded steps' outputs are zeroed (their gradient is
        zero, so they add nothing to the weights' gradients) and the final state is read at each sequence's last
        step."""
        batch, steps = x.shape[0], x.shape[1]
        if self.backward:
            index = _reversal_index(lengths.tensor, steps, x.device)[..., None]
            x = x.gather(1, index.expand(x.shape))
        out = self._sequence_kernel(x, hx, weights, layers)
        if final_state:  # row b·steps + lengths[b] - 1 of the flattened steps: each sequence's last one
            last = torch.from_numpy(np.arange(batch) * steps + lengths.array - 1)
            return out.reshape(batch * steps, self.dim).index_select(0, last)
        out = out * mask[..., None].to(out.dtype)
        return out.gather(1, index.expand(out.shape)) if self.backward else out


# where FusedStack runs its two layers as one call: on a GPU, where cuDNN overlaps the layers and each call's
# set-up is host work the GPU waits for. On the CPU mkldnn runs a two-layer call as two one-layer calls anyway
# (the same time), and torch's packed two-layer loop adds the layers' gradients in another order than two calls
# (differences of float32 rounding), so the CPU keeps the two calls and their exact results.
_STACKED_DEVICES = ("cuda",)


class FusedStack(torch.nn.Module):
    """Two stacked fused LSTM loops, the second reading only the first's sequence (a model's
    ``Sequential([Recurrence(LSTM(d)), Recurrence(LSTM(d))])``), as ONE call of the kernel with two layers, as
    ``nn.LSTM(num_layers=2)`` makes it: on a GPU cuDNN then overlaps the layers' steps and sets up one call
    instead of two each way (_STACKED_DEVICES). The kernel runs the same layers: values and gradients are the
    two calls' up to the order in which it adds (float32 rounding).

    forward(first, second, mask, slots, x, W0, H0, b0, h0, c0, W1, H1, b1, h1, c1, *externals, final_state=False):
    ``first`` and ``second`` are the two loops' FusedRNN modules (they stay the lowered module's own children,
    under their names, and the graph hands them over), ``externals`` the first loop's generic externals then the
    second's, with None where the second reads the first's output. The CPU, carried state, traced graphs, learned
    initial states run the two loops one after the other, as before the rewrite."""

    def __init__(self, first_externals, reads_first):
        super(FusedStack, self).__init__()
        self._first_externals = first_externals
        self._reads_first = frozenset(reads_first)
        self._hx_cache = None

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_hx_cache"] = None
        return state

    def forward(self, first, second, mask, slots, x, W0, H0, b0, h0, c0, W1, H1, b1, h1, c1, *externals,
                final_state=False):
        if x.device.type not in _STACKED_DEVICES or slots is not None or torch.compiler.is_compiling() or \
                first.sequences_are_full or second.sequences_are_full or \
                any(t.requires_grad for t in (h0, c0, h1, c1)):
            out = first(mask, slots, x, W0, H0, b0, h0, c0, *externals[:self._first_externals])
            rest = [out if k in self._reads_first else e for k, e in enumerate(externals[self._first_externals:])]
            return second(mask, slots, out, W1, H1, b1, h1, c1, *rest, final_state=final_state)
        batch, steps = mask.shape[0], mask.shape[1]
        if steps == 0:
            raise ValueError("a recurrent loop cannot run over empty sequences")
        states = [first._initial_state(h0, 0, batch)[0], first._initial_state(c0, 1, batch)[0],
                  second._initial_state(h1, 0, batch)[0], second._initial_state(c1, 1, batch)[0]]
        held = self._hx_cache
        if held is None or any(a is not b for a, b in zip(held[0], states)):
            # the layers' constant states, each kept by its loop while unchanged: stacked once for both
            held = self._hx_cache = (states, (torch.cat([states[0], states[2]]), torch.cat([states[1], states[3]])))
        weights = first._weights(W0, H0, b0) + second._weights(W1, H1, b1)
        return first._run(mask, x, held[1], True, weights, 2, final_state)


def stack_layers(graph, root):
    """Rewrites a fused LSTM loop whose sequence only the next fused LSTM loop reads (same direction, size, dtype,
    bias and mask; constant initial states) and that next loop as one FusedStack call (see there). Pairs only:
    a third layer stays a call of its own."""
    changed = False
    for n in list(graph.nodes):
        if n.op != "call_module" or len(n.args) < 8:
            continue
        second = root.get_submodule(n.target)
        source = n.args[2]
        if not isinstance(second, FusedRNN) or getattr(source, "op", None) != "call_module" or source.kwargs or \
                set(source.users) != {n}:
            continue
        first = root.get_submodule(source.target)
        if not isinstance(first, FusedRNN) or not _stackable(first, second) or \
                tuple(source.args[:2]) != tuple(n.args[:2]) or source in n.args[3:8]:
            continue
        first_externals, second_externals = source.args[8:], n.args[8:]
        reads_first = [k for k, e in enumerate(second_externals) if e is source]
        name = "stack%d" % len([m for m in root.children() if isinstance(m, FusedStack)])
        root.add_module(name, FusedStack(len(first_externals), reads_first))
        with graph.inserting_before(n):
            modules = (graph.get_attr(source.target), graph.get_attr(n.target))
            args = modules + tuple(n.args[:2]) + tuple(source.args[2:8]) + tuple(n.args[3:8]) + \
                tuple(first_externals) + tuple(None if e is source else e for e in second_externals)
            stacked = graph.call_module(name, args, dict(n.kwargs))
        _replace_pair(graph, n, source, stacked)
        changed = True
    return changed


def _replace_pair(graph, n, source, new):
    """Node ``new`` takes the place of ``n`` and of ``source``, the node only ``n`` read."""
    new.meta.update(n.meta)
    n.replace_all_uses_with(new)
    graph.erase_node(n)
    graph.erase_node(source)


def _stackable(first, second):
    return first.mode == second.mode == "lstm" and first.backward == second.backward and \
        first.dim == second.dim and first.dtype == second.dtype and first.has_bias == second.has_bias and \
        not any(first.init_dynamic) and not any(second.init_dynamic)


# per kernel, the most padded steps per real step for which the full-sequence kernel over the padded batch beats
# the packed one on the CPU. Full float32 sequences run on mkldnn's RNN kernels, packed ones as a loop of per-step
# ops whose fixed cost per step does not shrink with the sequences still running. Measured forward and backward
# (torch 2.14, one thread, 64 and 512 inputs, 128 and 512 units, 32 sequences of up to 60 steps): an LSTM padded
# to 2.4 times its real steps took 0.59 (128 units) and 0.92 (512 units) of the packed time; a tanh RNN padded
# to 1.9 times took 0.85 (128 units), 0.91 (256 units) but 1.31 (512 units), breaking even near 1.44 there;
# padded to 2.4 times it took 1.12 (128 units) and 1.54 (256 units).
_PADDING_LIMIT = {"lstm": 2.5, "rnn_tanh": 1.4, "rnn_relu": 1.4}
_SMALL_RNN = (256, 1.9)  # a tanh/relu RNN of at most this many units: its limit


def _pads_on_mkldnn(mode, x, lengths, dim):
    """Whether sequences of different lengths (``lengths``: their HostLengths) run faster through the
    full-sequence kernel over the padded batch than through the packed kernel: on the CPU in float32 while the
    padding is at most _PADDING_LIMIT[mode] (_SMALL_RNN's for a small tanh/relu RNN of ``dim`` units) times the
    real steps. cuDNN's packed kernels skip the padding themselves."""
    if x.device.type != "cpu" or x.dtype != torch.float32 or \
            not (torch.backends.mkldnn.is_available() and torch.backends.mkldnn.enabled):
        return False
    limit = _SMALL_RNN[1] if mode != "lstm" and dim <= _SMALL_RNN[0] else _PADDING_LIMIT[mode]
    return lengths.tensor.numel() * x.shape[1] <= limit * lengths.total


def use_final_states(graph, root):
    """Rewrites sequence.last of a forward fused loop (sequence.first of a backward one) whose sequence nothing
    else reads as one call of the loop that returns the kernel's final states (FusedRNN's final_state): a
    classifier's Recurrence + last, or Fold, then neither spreads the packed result over a (B, T, dim) tensor
    nor gathers the last steps back out of it, in either direction of autograd."""
    changed = False
    for n in list(graph.nodes):
        if n.op != "call_function" or n.target not in (last_step, first_step) or not n.args:
            continue
        source = n.args[0]
        if getattr(source, "op", None) != "call_module" or len(source.users) != 1 or source.kwargs:
            continue
        module = root.get_submodule(source.target)
        if not isinstance(module, FusedRNN) or (n.target is first_step) != module.backward:
            continue
        with graph.inserting_before(n):
            final = graph.call_module(source.target, source.args, {"final_state": True})
        _replace_pair(graph, n, source, final)
        changed = True
    return changed
