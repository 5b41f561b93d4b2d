"""Changing a graph in place: substituting variables, and inferring shapes again afterwards.

Functions are otherwise rebuilt by clone(); in-place changes exist for what cloning cannot express: closing a
recurrent loop (replace_placeholders with a substitute that depends on the placeholder), and finishing the
clone of a graph that already has loops. Shape inference then has to run to a fixed point, because inside a
loop a node's input types can depend on its own outputs.
"""
from . import graph_version
from .dtypes import promote
from .registry import OutputSpec

_COMBINE = "Combine"


def primitive_nodes(outputs, into_blocks=True):
    """Every primitive node below ``outputs`` (and, with into_blocks, inside block functions), each once,
    inputs before the nodes that read them wherever the graph has no loop."""
    order, seen = [], set()
    stack = [(v, False) for v in reversed(list(outputs))]
    while stack:
        item, expanded = stack.pop()
        if expanded:
            order.append(item)
            continue
        v = item
        if not v.is_output or id(v.owner) in seen:
            continue
        node = v.owner
        seen.add(id(node))
        stack.append((node, True))
        if into_blocks and node._block_root is not None:
            stack.extend((o, False) for o in reversed(node._block_root._outputs))
        stack.extend((i, False) for i in reversed(node._inputs))
    return order


def substitute_in_place(outputs, subs):
    """Make every node below ``outputs`` read subs[v] wherever it read v."""
    if not subs:
        return
    graph_version.bump()
    for node in primitive_nodes(outputs):
        node._inputs = [subs.get(i, i) for i in node._inputs]
        if node._op.name == _COMBINE:
            node._outputs = list(node._inputs)
        if node._block_arguments is not None:
            node._block_arguments = [(ph, subs.get(o, o)) for ph, o in node._block_arguments]
        if node._block_root is not None:
            root = node._block_root
            root._outputs = [subs.get(o, o) for o in root._outputs]


def _known(v):
    return v._shape is not None and v._dynamic_axes is not None


def _elementwise_from_known(inputs):
    """An elementwise result typed by the operands whose types are known: inside a loop the other operand
    (a delayed copy of the result) takes its type from the result."""
    from ..ops._common import broadcast_shape, dynamic_axes_of
    known = [i for i in inputs if _known(i)]
    if not known:
        return None
    return [OutputSpec(broadcast_shape([i._shape for i in known]), promote(*[i._dtype for i in known]),
                       dynamic_axes_of(known))]


def _node_specs(node):
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
    try:
        specs = op.infer(node._inputs, node._attributes)
    except (ValueError, TypeError):
        if all(_known(i) for i in node._inputs):
            raise
        return None
    if op.elementwise and specs[0].shape is None:
        return _elementwise_from_known(node._inputs) or specs
    return specs


def _set_type(v, shape, dtype, dynamic_axes, is_sparse):
    new = (shape, dtype, dynamic_axes, bool(is_sparse))
    if (v._shape, v._dtype, v._dynamic_axes, v._is_sparse) == new:
        return False
    v._shape, v._dtype, v._dynamic_axes, v._is_sparse = new
    return True


def _infer_node(node):
    """Re-run one node's shape rule; True if an output's type changed."""
    if node._op.name == _COMBINE:
        return False
    if node._block_root is not None:
        for inner, outer in node._block_arguments:
            _set_type(inner, outer._shape, outer._dtype, outer._dynamic_axes, outer._is_sparse)
        infer_in_place(node._block_root._outputs)
        changed = False
        for o, inner_o in zip(node._outputs, node._block_root._outputs):
            changed |= _set_type(o, inner_o._shape, inner_o._dtype, inner_o._dynamic_axes, inner_o._is_sparse)
        return changed
    specs = _node_specs(node)
    if specs is None:
        return False
    changed = False
    for o, s in zip(node._outputs, specs):
        if hasattr(s, "_shape"):
            changed |= _set_type(o, s._shape, s._dtype, s._dynamic_axes, s._is_sparse)
        else:
            changed |= _set_type(o, s.shape, s.dtype, s.dynamic_axes, s.is_sparse)
    return changed


def infer_in_place(outputs):
    """Infer the types of every node below ``outputs`` again, until nothing changes (loops need several
    passes: a delayed value learns its type from the result it delays)."""
    nodes = primitive_nodes(outputs, into_blocks=False)
    for _ in range(len(nodes) + 2):
        changed = False
        for node in nodes:
            changed |= _infer_node(node)
        if not changed:
            return
        graph_version.bump()
    raise ValueError("shape inference did not settle: the loop's types keep changing")
