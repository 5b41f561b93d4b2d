"""Changing a graph in place: substituting variables, and inferring shapes again afterwards.

Functions are otherwise rebuilt by clone(); in-place changes exist for what cloning cannot express: closing a
recurrent loop (replace_placeholders with a substitute that depends on the placeholder), and finishing the
clone of a graph that already has loops. Shape inference then has to run to a fixed point, because inside a
loop a node's input types can depend on its own outputs.
"""
from . import graph_version
from .axis import dynamic_axes_checks_active, dynamic_axes_mismatch, is_sequence_axis
from .block_arguments import note_block_arguments
from .dtypes import check_operand_dtypes
from .native_errors import HeldAnnouncements
from .graph import (node_inputs, node_inputs_and_body, node_inputs_native_order, strongly_connected_components,
                    walk)


def primitive_nodes(outputs, into_blocks=True):
    """Every primitive node below ``outputs`` (and, with into_blocks, inside block functions), each once,
    inputs before the nodes that read them wherever the graph has no loop."""
    return walk(outputs, node_inputs_and_body if into_blocks else node_inputs).nodes


def substitute_in_place(outputs, subs):
    """Make every node below ``outputs`` read subs[v] wherever it read v."""
    if not subs:
        return
    graph_version.bump()
    for node in primitive_nodes(outputs):
        node._inputs = [subs.get(i, i) for i in node._inputs]
        if node._op.outputs_are_inputs:
            node._outputs = list(node._inputs)
        if node._block_arguments is not None:
            node._block_arguments = [(ph, subs.get(o, o)) for ph, o in node._block_arguments]
            note_block_arguments(node._block_arguments)
        if node._block_root is not None:
            root = node._block_root
            root._outputs = [subs.get(o, o) for o in root._outputs]


def _known(v):
    return v._shape is not None and v._dynamic_axes is not None


def _nodes_on_cycles(nodes):
    """ids of the nodes (of ``nodes``) that lie on a cycle through their inputs."""
    members = {id(n) for n in nodes}

    def successors(node):
        return [i.owner for i in node._inputs if i.is_output and id(i.owner) in members]

    cyclic = set()
    for component in strongly_connected_components(nodes, successors):
        node = component[-1]
        if len(component) > 1 or node in successors(node):
            cyclic.update(id(m) for m in component)
    return cyclic


def _node_specs(node, guess):
    """The node's output specs from its inputs' current types; None where they do not say yet. guess > 0: the node
    is on a loop being typed, whose inputs may still hold a passing type (a delayed value typed before the value
    it delays): its shape rule's refusal waits for the loop to settle (_check_settled)."""
    op = node._op
    if op.infer is None:  # a user function: its infer_outputs() may manage with some inputs still unknown
        if not hasattr(node, "_declared_outputs") or not any(_known(i) for i in node._inputs):
            return None
        try:
            return node._declared_outputs()
        except RuntimeError:
            if all(_known(i) for i in node._inputs):
                raise
            return None
    held = HeldAnnouncements()   # a refusal that waits for the types to settle is not CNTK's to announce
    try:
        with held:
            check_operand_dtypes(node._op_name, node_inputs_native_order(node), op.mixed_dtypes)
            specs = op.infer(node._inputs, node._attributes)
    except (ValueError, TypeError, RuntimeError):  # RuntimeError: operands on dynamic axes that differ (yet)
        if not guess and all(_known(i) for i in node._inputs):
            held.release()
            raise
        return None
    if op.infer_partial is not None and specs[0].shape is None and guess:
        # a guess found in an earlier pass stays until the shape rule itself knows better
        partial = op.infer_partial(node._inputs, guess)
        known = [i for i in node._inputs if _known(i)]
        if partial and all(not i._dynamic_axes and all(d == 1 for d in i._shape) for i in known):
            # typed by static scalars alone (a stabilizer's factor beside the state it scales: the last-resort
            # guess): a start for the loop's typing that says nothing of the state's shape, not a type that a
            # shape rule may refuse (_check_settled)
            partial = [_Tentative(s) for s in partial]
        return partial or (None if node._outputs[0]._shape is not None else specs)
    return specs


class _Tentative:
    """An output spec guessed from static operands only (see _node_specs)."""
    tentative = True

    def __init__(self, spec):
        self.shape, self.dtype, self.dynamic_axes, self.is_sparse = \
            spec.shape, spec.dtype, spec.dynamic_axes, spec.is_sparse


def _set_type(v, shape, dtype, dynamic_axes, is_sparse, tentative=False):
    v._tentative_type = tentative
    new = (shape, dtype, dynamic_axes, bool(is_sparse))
    if (v._shape, v._dtype, v._dynamic_axes, v._is_sparse) == new:
        return False
    v._shape, v._dtype, v._dynamic_axes, v._is_sparse = new
    return True


def _infer_node(node, guess):
    """Re-run one node's shape rule; True if an output's type changed. guess (0, 1, 2): how far an elementwise
    node may take its type from part of its inputs; only nodes on a cycle guess (elsewhere an unknown input,
    such as a free placeholder, keeps the result unknown)."""
    if node._op.outputs_are_inputs:
        return False
    if node._block_root is not None:
        for inner, outer in node._block_arguments:
            _set_type(inner, outer._shape, outer._dtype, outer._dynamic_axes, outer._is_sparse, _tentative(outer))
        infer_in_place(node._block_root._outputs, guess or None)
        changed = False
        for o, inner_o in zip(node._outputs, node._block_root._outputs):
            changed |= _set_type(o, inner_o._shape, inner_o._dtype, inner_o._dynamic_axes, inner_o._is_sparse,
                                 _tentative(inner_o))
            o._guessed_type = o._shape is not None and (inner_o._guessed_type or any(
                outer._guessed_type for _, outer in node._block_arguments))
        return changed
    specs = _node_specs(node, guess)
    if specs is None:
        return False
    changed = False
    for o, s in zip(node._outputs, specs):
        if hasattr(s, "_shape"):
            changed |= _set_type(o, s._shape, s._dtype, s._dynamic_axes, s._is_sparse)
        else:
            changed |= _set_type(o, s.shape, s.dtype, s.dynamic_axes, s.is_sparse, getattr(s, "tentative", False))
    return changed


def _tentative(v):
    return getattr(v, "_tentative_type", False)


def refresh_block(node):
    """Infer a block's body again if its arguments' types changed since it was inferred (a placeholder below the
    block replaced later, through another Function): the body's placeholders take the arguments' types."""
    if any((inner._shape, inner._dtype, inner._dynamic_axes, inner._is_sparse) !=
           (outer._shape, outer._dtype, outer._dynamic_axes, outer._is_sparse)
           for inner, outer in node._block_arguments):
        _infer_node(node, 0)


def infer_in_place(outputs, cycle_guess=None, retyped_loops=None):
    """Infer the types of every node below ``outputs`` again, until nothing changes (loops need several
    passes: a delayed value learns its type from the result it delays). cycle_guess: these nodes are the inside
    of a block on a cycle, inferred at that guess level (see _infer_node). retyped_loops: ids of nodes whose
    types, where they lie on a loop, are forgotten first and found again from what the loop reads from outside
    (a clone's loops, typed from stand-ins with the original's types, over inputs that may now differ)."""
    nodes = primitive_nodes(outputs, into_blocks=False)
    cyclic = None if cycle_guess is not None else _nodes_on_cycles(nodes)
    if retyped_loops and cyclic:
        for node in nodes:
            if id(node) in cyclic and id(node) in retyped_loops:
                for o in node._outputs:
                    o._shape = o._dynamic_axes = None
    guess = 1
    for _ in range(2 * len(nodes) + 4):
        changed = False
        for node in nodes:
            level = cycle_guess if cyclic is None else (guess if id(node) in cyclic else 0)
            changed |= _infer_node(node, level)
        if changed:
            guess = 1
            graph_version.bump()
        elif guess == 1 and cyclic and any(o._shape is None for n in nodes if id(n) in cyclic for o in n._outputs):
            guess = 2
        else:
            _check_settled(n for n in nodes if cyclic is None or id(n) in cyclic)
            if cycle_guess is None:   # (the body of a block on a loop is checked once the loop is typed)
                _check_reconciled(nodes)
                _mark_guessed(nodes)
            return
    raise ValueError("shape inference did not settle: the loop's types keep changing")


def _mark_guessed(nodes):
    """Marks the outputs typed from an untyped input (a loop's guess from its parameters alone, and what is computed
    from it) as guessed, and clears the mark of the others (their inputs now typed)."""
    for node in nodes:
        for o in node._outputs:
            o._guessed_type = False
    changed = True
    while changed:
        changed = False
        for node in nodes:
            if node._op.outputs_are_inputs:
                continue
            guessed = any(not _known(i) or i._guessed_type for i in node._inputs)
            for o in node._outputs:
                if guessed and _known(o) and not o._guessed_type:
                    o._guessed_type = changed = True


def _check_reconciled(nodes):
    """A binary op reads a batch-only operand along the other's sequence axis only through the ReconcileDynamicAxis
    node made with it: operands typed so later (a placeholder bound to a sequence) are refused, as CNTK 2.7 refuses
    them (naming the operand whose axes differ from the first's, in CNTK's operand order)."""
    for node in nodes:
        if not node._op.reconciles or not dynamic_axes_checks_active():
            continue
        operands = [i for i in node_inputs_native_order(node) if i._dynamic_axes and not _tentative(i)]
        on_sequence = [any(is_sequence_axis(a) for a in i._dynamic_axes) for i in operands]
        if len(operands) == 2 and on_sequence.count(True) == 1:
            raise dynamic_axes_mismatch(node._op_name, operands[1], operands[0]._dynamic_axes)


def _check_settled(nodes):
    """Once a loop's types settle, each shape rule of it sees its final inputs: a refusal now stands."""
    for node in nodes:
        op = node._op
        if op.infer is not None and not op.outputs_are_inputs and node._block_root is None and \
                all(_known(i) and not _tentative(i) for i in node._inputs):
            op.infer(node._inputs, node._attributes)
