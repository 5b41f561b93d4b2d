"""Walking a Function graph: searching nodes by name or uid, listing outputs, and plotting.

Only the public graph API is used: ``root_function``, ``inputs``, ``outputs``, ``owner``, ``is_output``,
``is_block`` / ``block_root`` / ``block_arguments_mapping``, ``name``, ``uid`` and ``op_name``.
"""
import os
import shutil
import subprocess

from ..core.graph import _is_function, depth_first_search, find_all_with_name, find_by_name, find_by_uid

__all__ = [
    "depth_first_search", "find_all_with_name", "find_by_name", "find_by_uid", "plot", "get_node_outputs",
    "Variable"
]


def get_node_outputs(node, depth=0):
    """The outputs of every Function reachable from ``node``."""
    outputs = []
    for f in depth_first_search(node, _is_function, depth):
        outputs.extend(f.outputs)
    return outputs


def _functions_and_inputs(root):
    """(function, its inputs) for every Function reachable from ``root`` without entering blocks."""
    result = []
    for f in depth_first_search(root, _is_function, 0):
        f = f.root_function
        inputs = [i for i in f.inputs if not (f.is_block and getattr(i, "is_constant", False))]
        result.append((f, inputs))
    return result


def _input_kind(v):
    for kind in ("input", "placeholder", "parameter", "constant"):
        if getattr(v, "is_" + kind, False):
            return kind
    return "output"


_STYLE = {"input": 'shape=invhouse, fillcolor=yellow', "placeholder": 'shape=invhouse, fillcolor=grey',
          "parameter": 'shape=diamond, fillcolor=green', "constant": 'shape=rectangle, fillcolor=lightblue'}


def _quote(text):
    return '"%s"' % str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _dot(root, functions):
    lines = ['digraph network_graph {', '  rankdir=TB;',
             '  node [style=filled, fillcolor=lightgray, fontsize=12];']
    for f, inputs in functions:
        label = f.op_name + ("\n%s()" % f.name if f.name else "")
        lines.append('  %s [shape=box, label=%s];' % (_quote(f.uid), _quote(label)))
        for v in inputs:
            kind = _input_kind(v)
            source = v.owner.uid if kind == "output" else v.uid
            if kind != "output":
                name = v.name or kind.capitalize()
                lines.append('  %s [%s, label=%s];' % (_quote(v.uid), _STYLE[kind], _quote("%s\n%s" % (name, v.shape))))
            lines.append('  %s -> %s [label=%s];' % (_quote(source), _quote(f.uid),
                                                      _quote("%s\n%s" % (v.name or v.uid, v.shape))))
    root_function = getattr(root, "root_function", root)
    for out in root_function.outputs:
        lines.append('  %s [shape=egg, label=%s];' % (_quote(out.uid), _quote("%s\n%s" % (out.name, out.shape))))
        lines.append('  %s -> %s;' % (_quote(root_function.uid), _quote(out.uid)))
    lines.append('}')
    return "\n".join(lines) + "\n"


def plot(root, filename=None):
    """A text description of the graph below ``root`` (one ``op(inputs) -> output;`` line per Function output).

    With ``filename`` ('.dot', '.svg', '.pdf' or '.png') the graph is also written there; the image formats
    need Graphviz's ``dot`` program on the PATH.
    """
    suffix = None
    if filename:
        suffix = os.path.splitext(filename)[1].lower()
        if suffix not in ('.svg', '.pdf', '.png', '.dot'):
            raise ValueError('only file extensions ".svg", ".pdf", ".png", and ".dot" are supported')
        if suffix != '.dot' and shutil.which("dot") is None:
            raise RuntimeError("writing %s files needs Graphviz's 'dot' program on the PATH" % suffix)
    functions = _functions_and_inputs(root)
    model = []
    for f, inputs in functions:
        head = "%s(%s) -> " % (f.op_name, ", ".join(i.uid for i in inputs))
        model.extend(head + out.uid + ";\n" for out in f.outputs)
    if filename:
        dot_text = _dot(root, functions)
        if suffix == '.dot':
            with open(filename, "w") as f:
                f.write(dot_text)
        else:
            subprocess.run(["dot", "-T" + suffix[1:], "-o", filename], input=dot_text.encode(), check=True)
    return "\n".join(reversed(model))

from ..core.variables import Variable  # noqa: F401,E402 (CNTK's cntk.logging.graph exposes it)
