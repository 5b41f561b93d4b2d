"""Recurrent loops: cycles in the graph that pass through past_value / future_value.

The lowering finds them as strongly connected components of the node graph. Each loop becomes one
RecurrentLoop module: a torch.fx module computing one time step (the loop's nodes applied to the step's
slice of the inputs, with each delay node reading the value its input had time_step steps earlier, or
later for future_value), driven over the sequence axis and stacked back into a (B, T, ...) tensor per
output. Autograd differentiates through the unrolled steps.
"""
import operator

import torch
import torch.fx

from . import loop_steps, member_access
from .carried_state import carried_state_of
from .graph import strongly_connected_components
from .dtypes import to_torch_dtype
from .fused_gru import FusedGRU, match_gru
from .fused_recurrence import FusedRNN, match_lstm, match_rnn, store_for_kernel
from .initial_state import initial_state_steps, sequence_initial_steps, steps_as_initial_state
from .sequence_masks import gather_steps
from .loop_hoisting import hoist


class Loop(object):
    """The nodes of one strongly connected component, and what the lowering needs to know about them."""

    def __init__(self, nodes, node_inputs):
        self.nodes = nodes
        members = {id(n) for n in nodes}
        self.delays = [n for n in nodes if n._op.delay is not None]
        if not self.delays:
            raise ValueError("the graph has a cycle through %s without past_value or future_value; a loop "
                             "needs a delay" % ", ".join(sorted({n._op_name for n in nodes})))
        directions = {n._op.delay for n in self.delays}
        if len(directions) > 1:
            raise ValueError("a recurrent loop mixes past_value and future_value; split it into a forward "
                             "and a backward loop")
        self.backward = directions.pop() == "future"
        for d in self.delays:
            if not (d._inputs[0].is_output and id(d._inputs[0].owner) in members):
                raise ValueError("%s in a recurrent loop must delay a value computed in that loop" % d._op_name)
            if d._inputs[1].is_output and id(d._inputs[1].owner) in members:
                raise ValueError("%s: the initial_state of a recurrent loop cannot depend on the loop itself"
                                 % d._op_name)
        self.axis = self.delays[0]._outputs[0]._sequence_axis
        if self.axis is None:
            raise ValueError("a recurrent loop needs a sequence axis; its delayed value has dynamic axes %s"
                             % (self.delays[0]._outputs[0].dynamic_axes,))
        self.external_inputs = []
        seen = set()
        for n in nodes:
            for i in node_inputs(n):
                if (i.is_output and id(i.owner) in members) or i.uid in seen:
                    continue
                seen.add(i.uid)
                self.external_inputs.append(i)
        self.variables = [o for n in nodes for o in n._outputs]
        self.lowered_generic = False  # set once a fused lowering left the other loop values unavailable


def find_loops(start, node_inputs, done):
    """Tarjan's strongly connected components over the nodes reachable from node ``start`` whose outputs are
    not yet lowered (``done(variable)``). Returns the components that are loops (several nodes, or one node
    reading its own output), each a list of nodes, and the ids of all nodes visited."""
    def successors(node):
        return [i.owner for i in node_inputs(node) if i.is_output and not done(i)]

    components = strongly_connected_components([start], successors)
    loops = [list(reversed(component)) for component in components
             if len(component) > 1 or any(i.is_output and i.owner is component[-1]
                                          for i in node_inputs(component[-1]))]
    return loops, {id(node) for component in components for node in component}


def _cat_broadcast(parts):
    target = torch.broadcast_shapes(*[p.shape for p in parts])
    return torch.cat([p.expand(target) for p in parts], 1)


class RecurrentLoop(torch.nn.Module):
    """forward(mask, slots, *external_tensors) -> one (B, T, ...) tensor per loop variable.

    step: the fx module for one step, called as step(*step_inputs, *delayed_values, step_mask);
    on_axis[k]: whether external input k lies on the loop's sequence axis (then it is sliced per step);
    delays: per delay node (index of the loop variable it delays, time_step, index of its initial state
    among the external inputs, whether that state has a batch axis ("steps": a sequence's items, laid out as
    time_step steps), static shape, torch dtype);
    carried: per delay node its CarriedState (past_value loops), used when slots (SequenceSlots) is given.
    """

    def __init__(self, step, on_axis, delays, backward, carried, prelude=None):
        super(RecurrentLoop, self).__init__()
        self.prelude = prelude
        self.step = step
        self.on_axis = list(on_axis)
        self.delays = list(delays)
        self.backward = backward
        self.carried = list(carried)
        self._free_dimensions = any(d < 0 for delay in self.delays for d in delay[4])

    def forward(self, mask, slots, *externals):
        batch, steps = mask.shape[0], mask.shape[1]
        if steps == 0:
            raise ValueError("a recurrent loop cannot run over empty sequences")
        if self.backward:
            slots = None  # a future_value cannot read the next batch: a piece's end takes the initial state
        if self.prelude is not None:
            externals = externals + tuple(self.prelude(*externals))
        history = [None] * steps
        heads = [self._head(externals, batch, d, k, slots) for k, d in enumerate(self.delays)]
        order = range(steps - 1, -1, -1) if self.backward else range(steps)
        # each step's slice of the inputs on the sequence axis, as views made in one call per input
        per_step = [e.split(1, 1) if on else None for e, on in zip(externals, self.on_axis)]
        step_masks = mask.split(1, 1)
        step = self.step.forward
        with loop_steps.running(loop_steps.LoopCall(mask, self.backward)) as call:
            for t in order:
                step_inputs = [e if p is None else p[t] for e, p in zip(externals, per_step)]
                delayed = [self._delayed(history, mask, t, steps, d, head) for d, head in zip(self.delays, heads)]
                call.t = t
                history[t] = step(*step_inputs, *delayed, step_masks[t])
        n_vars = len(history[0])
        if self._free_dimensions:
            # before the first step reads real data, a free dimension of a delayed value has size 1 (the
            # initial state broadcast): every step's values take the size the data gave
            results = tuple(_cat_broadcast([history[t][k] for t in range(steps)]) for k in range(n_vars))
        else:
            results = tuple(torch.cat([history[t][k] for t in range(steps)], 1) for k in range(n_vars))
        if slots is not None:
            for delay, carried, head in zip(self.delays, self.carried, heads):
                values = results[delay[0]]
                head = head.expand(tuple(head.shape[:2]) + tuple(values.shape[2:]))  # free dimensions
                carried.keep(torch.cat([head, values], 1), mask, delay[1], slots)
        return results

    def _head(self, externals, batch, delay, k, slots):
        """What a delay reads before its sequence's first step: the initial state as one step (B, 1, ...), or
        with slots its time_step values (B, time_step, ...), carried over for continuing sequences."""
        _, time_step, init_index, init_dynamic, shape, dtype = delay
        init = externals[init_index]
        if init_dynamic == "steps":   # a sequence's items, already time_step steps
            initial = steps_as_initial_state(init, init.shape[:2], shape, dtype)
            return initial if slots is None else self.carried[k].head(initial, slots)
        if slots is None:
            return initial_state_steps(init, init_dynamic, batch, 1, shape, dtype)
        initial = initial_state_steps(init, init_dynamic, batch, time_step, shape, dtype)
        return self.carried[k].head(initial, slots)

    def _delayed(self, history, mask, t, steps, delay, head):
        var_index, time_step, shape = delay[0], delay[1], delay[4]
        if self.backward:
            src = t + time_step
            if head.shape[1] > 1:   # a sequence's first items: the one this step reaches past its sequence's end
                head = gather_steps(head, (src - mask.sum(1))[:, None])
            if src >= steps:
                return head
            valid = mask[:, src].reshape((mask.shape[0], 1) + (1,) * len(shape))
            return torch.where(valid, history[src][var_index], head)
        src = t - time_step
        if src >= 0:
            return history[src][var_index]
        if head.shape[1] == 1:
            return head
        return head[:, head.shape[1] + src:head.shape[1] + src + 1]


def _loop_inputs(loop):
    """The loop module's inputs: (Variable, None) per input read as it is (sliced per step when on the loop's
    axis), and (Variable, time_step) per sequence that is a delay's initial state, which enters as that many of
    its items (the last ones; the first ones running backwards). A sequence that the loop also reads step by step
    enters both ways."""
    inits = []
    for d in loop.delays:
        entry = (d._inputs[1], d._attributes["time_step"])
        if entry[0]._sequence_axis is not None and (entry[0].uid, entry[1]) not in [(v.uid, k) for v, k in inits]:
            inits.append(entry)
    read = {i.uid for n in loop.nodes for i in (n._inputs[:1] if n in loop.delays else n._inputs)}
    initial = {v.uid for v, _ in inits}
    plain = [(e, None) for e in loop.external_inputs if e.uid not in initial or e.uid in read]
    return plain + inits


def lower_loop(builder, loop, make_builder):
    """Add loop to builder's graph as one RecurrentLoop call; its variables' values enter builder.env."""
    inputs = _loop_inputs(loop)
    step = make_builder()
    outer_values = []
    for k, (e, steps) in enumerate(inputs):
        placeholder = step.graph.placeholder("in%d" % k)
        value = builder.env[e.uid]
        if steps is not None:
            value = builder.graph.call_function(sequence_initial_steps, (
                value, builder.mask(e._sequence_axis, loop.delays[0]), steps, not loop.backward,
                "%s %s" % (loop.delays[0].uid, loop.delays[0]._op_name)))
        else:
            step.env[e.uid] = placeholder
            if e._sequence_axis is not None and e._sequence_axis.name != loop.axis.name:
                raise ValueError("a recurrent loop over sequence axis %r reads an input on another sequence axis "
                                 "%r" % (loop.axis.name, e._sequence_axis.name))
        outer_values.append(value)
    # where each delay's initial state enters: a sequence's items as initial state, else its only entry
    init_index = {(e.uid, steps): k for k, (e, steps) in enumerate(inputs) if steps is not None}
    init_index.update({(e.uid, None): k for k, (e, steps) in enumerate(inputs) if e._sequence_axis is None})
    var_index = {v.uid: k for k, v in enumerate(loop.variables)}
    delays = []
    for k, d in enumerate(loop.delays):
        step.env[d._outputs[0].uid] = step.graph.placeholder("delayed%d" % k)
        init, out, time_step = d._inputs[1], d._outputs[0], d._attributes["time_step"]
        as_steps = init._sequence_axis is not None
        delays.append((var_index[d._inputs[0].uid], time_step, init_index[(init.uid, time_step if as_steps else None)],
                       "steps" if as_steps else init._n_dynamic > 0, tuple(out._shape), to_torch_dtype(out._dtype)))
    step.masks[loop.axis.name] = step.graph.placeholder("step_mask")
    results = [step.value(v) for v in loop.variables]
    step.graph.output(tuple(results))
    on_axis = [e._sequence_axis is not None and steps is None for e, steps in inputs]
    prelude, hoisted_on_axis = hoist(step.graph, len(inputs), on_axis)
    prelude_module = None if prelude is None else torch.fx.GraphModule(step.root, prelude, class_name="LoopPrelude")
    step_module = torch.fx.GraphModule(step.root, step.graph, class_name="RecurrentStep")
    member_access.install(step_module)   # its parameters are fetched at every step
    carried = [] if loop.backward else [carried_state_of(d) for d in loop.delays]
    module = RecurrentLoop(step_module, on_axis + hoisted_on_axis, delays, loop.backward, carried, prelude_module)
    name = "loop%d" % len([m for m in builder.root.children() if isinstance(m, _LOOP_MODULES)])
    mask = builder.mask(loop.axis, loop.delays[0])
    slots = builder.slots.get(loop.axis.name)
    sequence_inits = {e.uid for e, steps in inputs if steps is not None}
    fused = None if loop.lowered_generic else _fused(builder, loop, sequence_inits, module, var_index)
    if fused is not None:
        fused_module, fused_inputs, h_var = fused
        builder.root.add_module(name, fused_module)
        builder.env[h_var.uid] = builder.graph.call_module(name, (mask, slots) + fused_inputs + tuple(outer_values))
        # the loop's other values are read by nothing outside it; asking for one lowers the loop again, generically
        loop.lowered_generic = True
        return
    builder.root.add_module(name, module)
    node = builder.graph.call_module(name, (mask, slots) + tuple(outer_values))
    for k, v in enumerate(loop.variables):
        builder.env[v.uid] = builder.graph.call_function(operator.getitem, (node, k))


_LOOP_MODULES = (RecurrentLoop, FusedRNN, FusedGRU)


def _fused(builder, loop, sequence_inits, generic, var_index):
    """(fused module, its fx inputs, the Variable it computes) when the loop is an LSTM or a tanh / relu RNN that
    torch's kernels run, or a GRU that core.fused_gru runs, else None (the rules that send a loop back to the step loop are listed in
    core.fused_recurrence)."""
    match = match_lstm(loop) or match_rnn(loop)
    gru = match_gru(loop) if match is None else None
    if match is None and gru is None:
        return None
    h_delay = match.h_delay if match is not None else gru.h_delay
    inits = [d._inputs[1] for d in (h_delay, match and match.c_delay) if d is not None]
    if any(i.uid in sequence_inits for i in inits):
        return None
    h_var = h_delay._inputs[0]
    members = {id(n) for n in loop.nodes}
    for v in loop.variables:
        if v is not h_var and builder.read_outside(v, members):
            return None
    out = h_delay._outputs[0]
    dtype = to_torch_dtype(out._dtype)
    if match is not None:
        for weight in (match.W, match.H):
            store_for_kernel(weight)
        values = tuple(None if v is None else builder.value(v) for v in (match.x, match.W, match.H, match.b))
        init_dynamic = tuple(i._n_dynamic > 0 for i in inits) + (False,) * (2 - len(inits))
        module = FusedRNN(match.dim, loop.backward, init_dynamic, match.b is not None, dtype, generic,
                          var_index[h_var.uid], match.mode)
    else:
        values = tuple(None if v is None else builder.value(v) for v in (gru.x, gru.W, gru.b, gru.H, gru.H1))
        module = FusedGRU(gru.dim, loop.backward, inits[0]._n_dynamic > 0, dtype, generic, var_index[h_var.uid])
    init_values = tuple(builder.env[i.uid] for i in inits)
    if match is not None and match.c_delay is None:
        init_values += (None,)  # a plain RNN has no cell state
    return module, values + init_values, h_var
