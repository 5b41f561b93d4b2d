"""Walking a Function graph (depth-first, optionally into block functions), and finding nodes in it.

Only the public graph API is used: ``root_function``, ``inputs``, ``owner``, ``is_output``, ``is_block`` /
``block_root`` / ``block_arguments_mapping``, ``name`` and ``uid``.
"""
import sys


def _is_function(node):
    return hasattr(node, "root_function")


def depth_first_search(root, visitor, depth=0):
    """The nodes (Functions and non-output Variables) reachable from ``root`` for which ``visitor(node)`` is
    True, in depth-first order (a Function before its inputs).

    ``depth`` is how many levels of block Functions to look into (-1: all); blocks themselves are visited too.
    """
    max_depth = sys.maxsize if depth == -1 else depth
    pending = [(getattr(root, "root_function", root), max_depth)]
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
            pending.insert(0, (node.owner, level))
            continue
        if visitor(node):
            found.append(node)
    return found


def find_all_with_name(node, node_name, depth=0):
    """All Functions and Variables named ``node_name`` reachable from ``node`` (see
    :func:`depth_first_search` for ``depth``)."""
    return depth_first_search(node, lambda x: x.name == node_name, depth)


def _single(found, what, value):
    if len(found) > 1:
        raise ValueError("found multiple functions matching %s %r. If that was expected call "
                         "find_all_with_name" % (what, value))
    return found[0] if found else None


def find_by_name(node, node_name, depth=0):
    """The node named ``node_name`` reachable from ``node``, or None; ValueError if there are several."""
    if not isinstance(node_name, str):
        raise ValueError("node name has to be a string. You gave a %s" % type(node_name))
    return _single(depth_first_search(node, lambda x: x.name == node_name, depth), "name", node_name)


def find_by_uid(node, node_uid, depth=0):
    """The node with uid ``node_uid`` reachable from ``node``, or None."""
    if not isinstance(node_uid, str):
        raise ValueError("node_uid must be a string, got a %s" % type(node_uid))
    return _single(depth_first_search(node, lambda x: x.uid == node_uid, depth), "uid", node_uid)
