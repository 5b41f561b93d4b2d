"""Rewriting a graph: replace every Function that passes a filter by what a converter builds from it."""
from ..core.function import CloneMethod, Function, as_block
from ..core.graph import depth_first_search
from ..ops import combine

__all__ = ["convert"]


def _is_block(node):
    return isinstance(node, Function) and node.root_function.is_block


def _replace_outputs(root, old_outputs, new_function):
    """``root`` with each of ``old_outputs`` read from the matching output of ``new_function`` instead
    (parameters shared)."""
    if list(root.outputs) == list(old_outputs):
        return new_function
    replacements = dict(zip(old_outputs, new_function.outputs))
    if all(o in replacements for o in root.outputs):
        return combine([replacements[o] for o in root.outputs])
    return root.clone(CloneMethod.share, replacements)


def _convert_blocks(root_func, filter, converter):
    """``root_func`` with the inside of each of its blocks converted (a block stays a block)."""
    count = len(depth_first_search(root_func, _is_block, depth=0))
    for k in range(count):
        # the graph is rebuilt after each block; its blocks are found again in the same order
        block = depth_first_search(root_func, _is_block, depth=0)[k].root_function
        inner = combine(block.block_root.outputs)
        converted = convert(inner, filter, converter)
        if converted is inner:
            continue
        actual_of = {inner_arg.uid: actual for inner_arg, actual in block.block_arguments_mapping}
        mapping = [(arg, actual_of[arg.uid]) for arg in converted.arguments]
        new_block = as_block(converted, mapping, block.op_name, block.name)
        root_func = _replace_outputs(root_func, block.outputs, new_block)
    return root_func


def convert(root_func, filter, converter):
    """A copy of the graph of ``root_func`` (parameters shared) in which every Function ``f`` for which
    ``filter(f)`` is True, inside blocks too, is replaced by ``converter(f)`` (a Function with as many outputs
    as ``f``). Returns ``root_func`` itself when nothing matches. ValueError if a converted Function passes
    the filter again (the conversion would never end)."""
    if not isinstance(root_func, Function):
        raise TypeError("convert: root_func must be a Function, got %s" % type(root_func).__name__)
    if not callable(filter) or not callable(converter):
        raise TypeError("convert: filter and converter must be callables")
    root_func = _convert_blocks(root_func, filter, converter)
    matches = depth_first_search(root_func, filter, depth=0)
    while matches:
        found = matches[0]
        converted = converter(found)
        if not isinstance(converted, Function):
            raise TypeError("convert: the converter must return a Function, got %s for %s"
                            % (type(converted).__name__, found))
        if len(converted.outputs) != len(found.outputs):
            raise ValueError("convert: the converter returned %d outputs for %s, which has %d"
                             % (len(converted.outputs), found, len(found.outputs)))
        root_func = _replace_outputs(root_func, found.outputs, converted)
        remaining = depth_first_search(root_func, filter, depth=0)
        if len(remaining) >= len(matches):
            raise ValueError("convert: the converted Function still passes the filter, so the conversion "
                             "would not end (converter result: %s)" % converted)
        matches = remaining
    return root_func
