"""Walking a Function graph (depth-first, optionally into block functions)."""
import sys


def depth_first_search(root, visitor, depth=0):
    """Nodes (Functions and Variables) reachable from ``root`` for which ``visitor`` is true.

    depth: how many levels of block functions to walk into (-1: all).
    """
    if depth == -1:
        depth = sys.maxsize
    stack = [(root.root_function, depth)]
    found, visited = [], set()
    while stack:
        node, level = stack.pop(0)
        if node.uid in visited:
            continue
        visited.add(node.uid)
        if getattr(node, "is_block", False) and level > 0:
            mapping = node.block_arguments_mapping
            stack.extend((outer, level - 1) for _, outer in mapping)
            visited.update(inner.uid for inner, _ in mapping)
            stack.append((node.block_root.root_function, level - 1))
            if visitor(node):
                found.append(node)
            continue
        if hasattr(node, "root_function"):
            stack = [(i, level) for i in node.inputs] + stack
        elif node.is_output:
            stack.insert(0, (node.owner, level))
            continue
        if visitor(node):
            found.append(node)
    return found


def find_all_with_name(node, node_name, depth=0):
    return depth_first_search(node, lambda n: n.name == node_name, depth)


def find_by_name(node, node_name, depth=0):
    if not isinstance(node_name, str):
        raise ValueError("find_by_name: node_name must be a str, got %s" % type(node_name).__name__)
    hits = find_all_with_name(node, node_name, depth)
    if len(hits) > 1:
        raise ValueError("find_by_name: found %d nodes named %r; use find_all_with_name" % (len(hits), node_name))
    return hits[0] if hits else None
