"""Hoisting out of a recurrent loop's step: every computation of the step that does not depend on a delayed
value (the input projections x·W + b of LSTM, GRU and custom cells are most of the work) runs once over all
time steps before the step loop, and the step reads its slice of the result.

An op computed on (B, T, ...) gives per time step what it gives on each (B, 1, ...) slice, because inside a
loop every op acts on each step by itself (ops that see whole sequences are rejected there). Ops are kept in the
step when their registry entry says they must run once per step (uses_random: each call is a new draw), see
masks or the training flag, change the dynamic axes (a reduction over the batch or all axes), or when they
read something computed in the step.
"""
import torch.fx


def _kept_in_step(op):
    return op.uses_training or op.uses_mask or op.uses_masks or op.makes_mask or op.uses_random


def _keeps_step_layout(node):
    """Whether the node's outputs lie on (batch, sequence) like its sequence inputs, so that its result over all
    steps sliced at step t is its result at step t (a reduction over a dynamic axis is not), or whether it reads
    nothing with dynamic axes at all."""
    if not any(i._n_dynamic for i in node._inputs):
        return True
    return all(o._n_dynamic == 2 and o._sequence_axis is not None for o in node._outputs)


def mark_step_node(fx_node, op, node):
    """Records on the fx node computing ``node`` (a primitive applying ``op``) whether it may be hoisted."""
    fx_node.meta["cntk_hoistable"] = not _kept_in_step(op) and _keeps_step_layout(node)


def hoist(graph, n_inputs, on_axis):
    """Moves the nodes of the step ``graph`` (placeholders: n_inputs step inputs, then the delayed values and
    the step mask) that depend only on step inputs and module attributes into a prelude graph, computed once on
    the whole inputs. Returns (prelude graph or None, per prelude output whether it lies on the sequence axis);
    the step graph then takes one placeholder per prelude output after its inputs."""
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    inputs = placeholders[:n_inputs]
    on_seq = {ph: bool(flag) for ph, flag in zip(inputs, on_axis)}
    work = False
    for n in graph.nodes:
        if n.op == "get_attr":
            on_seq[n] = False
        elif n.op == "call_function" and n.meta.get("cntk_hoistable", True) and \
                all(d in on_seq for d in n.all_input_nodes):
            on_seq[n] = any(on_seq[d] for d in n.all_input_nodes)
            work = work or (on_seq[n] and "cntk_hoistable" in n.meta)
    if not work:
        return None, []
    boundary = [n for n in graph.nodes if n.op == "call_function" and n in on_seq and
                any(u not in on_seq for u in n.users)]
    prelude = torch.fx.Graph()
    env = {}
    for ph in inputs:
        env[ph] = prelude.placeholder(ph.name)
    for n in graph.nodes:
        if n in on_seq and n.op != "placeholder":
            env[n] = prelude.node_copy(n, lambda a: env[a])
    prelude.output(tuple(env[b] for b in boundary))
    prelude.eliminate_dead_code()
    anchor = inputs[-1]
    for j, b in enumerate(boundary):
        with graph.inserting_after(anchor):
            anchor = graph.placeholder("hoisted%d" % j)
        b.replace_all_uses_with(anchor)
    graph.eliminate_dead_code()
    return prelude, [on_seq[b] for b in boundary]
