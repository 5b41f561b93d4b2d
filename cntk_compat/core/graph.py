"""Walking a Function graph: the one walk the core's passes share, and CNTK's search by name.

``walk`` is the walk that clone, re-inference, serialization, the random-state checkpoint and Function's
leaves/arguments use: iterative (no recursion limit on deep graphs) and safe on recurrent loops, whose
back references it reports instead of following. ``depth_first_search`` is CNTK's public search (its order of
visit is CNTK's, which scripts see in find_all_with_name) and uses only the public graph API.
"""
import collections
import sys


def node_inputs(node):
    """A node's inputs (a block: the leaves its body captures, then its arguments)."""
    return node._inputs


def node_inputs_native_order(node):
    """A node's inputs in CNTK's C++ operand order (its op's native_operand_order): the order of a Function's
    parameters and constants and of a block's captured leaves; its inputs and arguments keep Python's."""
    order = node._op.native_operand_order
    if order is None or node._block_root is not None:
        return node._inputs
    return [node._inputs[k] for k in order]


def node_inputs_and_body(node):
    """What a node depends on, entering blocks: a block's arguments, then its body's outputs."""
    if node._block_root is not None:
        return [outer for _, outer in node._block_arguments] + list(node._block_root._outputs)
    return node._inputs


GraphWalk = collections.namedtuple("GraphWalk", "leaves nodes loop_references")
GraphWalk.__doc__ = """leaves: the non-output Variables reached, in order of first visit (CNTK's leaf order).
nodes: the primitive Functions, each after everything it depends on (outside loops).
loop_references: outputs reached while the walk was still below their node (a recurrent loop's back edge),
    each once."""


def walk(outputs, dependencies=node_inputs, stop=None):
    """Depth first, left to right from ``outputs``: a GraphWalk. ``dependencies(node)`` lists what a node
    depends on (node_inputs, or node_inputs_and_body to enter blocks); a Variable for which ``stop(v)`` is
    True is neither followed nor listed."""
    leaves, nodes, loop_references = [], [], []
    done, open_nodes, referenced = set(), set(), set()
    stack = [(v, False) for v in reversed(list(outputs))]
    while stack:
        v, expanded = stack.pop()
        if stop is not None and stop(v):
            continue
        if not v.is_output:
            if id(v) not in done:
                done.add(id(v))
                leaves.append(v)
            continue
        node = v.owner
        if id(node) in done:
            continue
        if expanded:
            open_nodes.discard(id(node))
            done.add(id(node))
            nodes.append(node)
            continue
        if id(node) in open_nodes:
            if id(v) not in referenced:
                referenced.add(id(v))
                loop_references.append(v)
            continue
        open_nodes.add(id(node))
        stack.append((v, True))
        stack.extend((d, False) for d in reversed(dependencies(node)))
    return GraphWalk(leaves, nodes, loop_references)


def strongly_connected_components(roots, successors):
    """Tarjan's strongly connected components (iterative, so deep graphs do not exhaust the stack) of the nodes
    reachable from ``roots`` through ``successors(node)``. Returns each component as a list of its nodes, in
    the order Tarjan completes them (a component after every component it reaches)."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []

    def visit(node, work):
        index[id(node)] = low[id(node)] = len(index)
        stack.append(node)
        on_stack.add(id(node))
        work.append((node, iter(successors(node))))

    for root in roots:
        if id(root) in index:
            continue
        work = []
        visit(root, work)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if id(nxt) not in index:
                    visit(nxt, work)
                elif id(nxt) in on_stack:
                    low[id(node)] = min(low[id(node)], index[id(nxt)])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[id(parent)] = min(low[id(parent)], low[id(node)])
            if low[id(node)] == index[id(node)]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(id(member))
                    component.append(member)
                    if member is node:
                        break
                components.append(component)
    return components


def _is_function(node):
    return hasattr(node, "root_function")


def depth_first_search(root, visitor, depth=0, user_functions_found=True):
    """The nodes (Functions and non-output Variables) reachable from ``root`` for which ``visitor(node)`` is
    True, in depth-first order (a Function before its inputs).

    ``depth`` is how many levels of block Functions to look into (-1: all); blocks themselves are visited too.
    As in CNTK, a user function is visited as a plain Function (op_name 'UserFunction'), unless
    ``user_functions_found`` is False (the Python objects themselves, for the package's own graph rewrites).
    """
    max_depth = sys.maxsize if depth == -1 else depth
    start = getattr(root, "root_function", root)
    if not user_functions_found:
        start = getattr(start, "_user_function", start)
    pending = [(start, max_depth)]
    found = []
    visited = set()
    while pending:
        node, level = pending.pop(0)
        if node.uid in visited:
            continue
        visited.add(node.uid)
        if _is_function(node):
            if level > 0 and node.is_block:
                mapping = node.block_arguments_mapping
                pending.extend((actual, level - 1) for _, actual in mapping)
                visited.update(inner.uid for inner, _ in mapping)
                pending.append((node.block_root, level - 1))
            else:
                pending[:0] = [(i, level) for i in node.root_function.inputs]
        elif node.is_output:
            pending.insert(0, (_as_found(node.owner) if user_functions_found else node.owner, level))
            continue
        if visitor(node):
            found.append(node)
    return found


def _as_found(node):
    """What a search by name or uid gives for ``node``: as in CNTK, a user function is found as a plain Function
    (``serialize()`` gives CNTK's dictionary, with the user's state under 'state'), not as its Python class."""
    view = getattr(type(node), "_found_view", None)
    return node if view is None else node._found_view()


def find_all_with_name(node, node_name, depth=0):
    """All Functions and Variables named ``node_name`` reachable from ``node`` (see
    :func:`depth_first_search` for ``depth``)."""
    return [_as_found(n) for n in depth_first_search(node, lambda x: x.name == node_name, depth)]


def _single(found, value):
    if len(found) > 1:
        raise ValueError('found multiple functions matching "%s". If that was expected call '
                         'find_all_with_name' % value)
    return _as_found(found[0]) if found else None


def find_by_name(node, node_name, depth=0):
    """The node named ``node_name`` reachable from ``node``, or None; ValueError if there are several."""
    if not isinstance(node_name, str):
        raise ValueError("node name has to be a string. You gave a %s" % type(node_name))
    return _single(depth_first_search(node, lambda x: x.name == node_name, depth), node_name)


def find_by_uid(node, node_uid, depth=0):
    """The node with uid ``node_uid`` reachable from ``node``, or None."""
    if not isinstance(node_uid, str):
        raise ValueError("node_uid must be a string, got a %s" % type(node_uid))
    return _single(depth_first_search(node, lambda x: x.uid == node_uid, depth), node_uid)
