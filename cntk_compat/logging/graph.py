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


_SYMBOLS = {"Plus": "+", "Minus": "-", "ElementTimes": "*", "Times": "@"}


def _quote(text):
    return '"%s"' % str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _shape_text(v):
    """A variable's axes as CNTK's plot labels them: [#] for the batch axis, one * per further dynamic axis, then
    the static shape as a Python tuple."""
    axes = v.dynamic_axes
    return ("[#" + ",*" * (len(axes) - 1) + "]" if axes else "") + str(v.shape)


def _attributes(**attributes):
    return ", ".join("%s=%s" % (k, _quote(v) if isinstance(v, str) else v) for k, v in attributes.items())


def _function_node(f):
    """How CNTK 2.7's plot draws a Function: a primitive whose output carries its own name as the operator's
    symbol or name (in a fixed-size ellipse when at most 4 characters long, else in a box that grows with it);
    a block or a named node as a fixed-size 1 x 1.3 inch box reading 'op' and 'name()'. The fixed sizes are
    Graphviz's: a longer label makes dot warn on stderr ("size too small for label"), as under CNTK."""
    pen = 1 if f.op_name in ("Pass", "ParameterOrder") else 4
    if not f.is_block and len(f.outputs) == 1 and f.output.name == f.name:
        op = _SYMBOLS.get(f.op_name, f.op_name)
        small = len(op) <= 4
        return _attributes(label=op, shape="ellipse" if small else "box", fixedsize="true" if small else "false",
                           height=0.4 if small else 0.6, width=0.4 if small else 0.6,
                           fontsize=20 if small and len(op) == 1 else 12, penwidth=pen)
    label = f.op_name + ("\n%s()" % f.name if f.name else "")
    return _attributes(label=label, fixedsize="true", height=1, width=1.3, penwidth=pen)


def _leaf_node(v, kind):
    """A leaf input of a Function, as CNTK 2.7's plot draws it: inputs and placeholders as fixed-size eggs,
    unnamed scalar constants as their value, parameters and constants as boxes (in the default grey)."""
    name = kind.capitalize()
    if v.name:
        name = v.name if kind == "parameter" else name + "\n" + v.name
    name += "\n" + _shape_text(v)
    if kind in ("input", "placeholder"):
        return _attributes(shape="egg", label=name, fixedsize="true", height=1, width=1.3, penwidth=4)
    if kind == "constant" and not v.name and tuple(v.shape) in ((), (1,)):
        return _attributes(shape="box", label=str(v.value), color="white", fillcolor="white", height=0.3, width=0.4)
    return _attributes(shape="box", label=name, height=0.6, width=1)


def _dot(root, functions):
    lines = ['digraph network_graph {', '  rankdir=TB;',
             '  node [shape=rectangle, fixedsize=false, style=filled, fillcolor=lightgray, height=0.85, width=0.85, '
             'fontsize=12];', '  edge [fontsize=10];']
    for f, inputs in functions:
        lines.append('  %s [%s];' % (_quote(f.uid), _function_node(f)))
        for v in inputs:
            kind = _input_kind(v)
            source = v.owner.uid if kind == "output" else v.uid
            if kind != "output":
                lines.append('  %s [%s];' % (_quote(v.uid), _leaf_node(v, kind)))
            lines.append('  %s -> %s [label=%s];' % (_quote(source), _quote(f.uid),
                                                      _quote("%s\n%s" % (v.name or v.uid, _shape_text(v)))))
    root_function = getattr(root, "root_function", root)
    for out in root_function.outputs:
        lines.append('  %s [%s];' % (_quote(out.uid), _attributes(shape="egg", label="%s\n%s" % (
            out.name, _shape_text(out)), fixedsize="true", height=1, width=1.3, penwidth=4)))
        lines.append('  %s -> %s [label=%s];' % (_quote(root_function.uid), _quote(out.uid),
                                                  _quote(_shape_text(out))))
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
            done = subprocess.run(["dot", "-T" + suffix[1:], "-o", filename], input=dot_text.encode(), check=True,
                                  stderr=subprocess.PIPE)
            if done.stderr:
                # as CNTK's plot (through pydot_ng) passes them on: dot's warnings printed on stdout
                print(done.stderr.decode(errors="replace"))
    return "\n".join(reversed(model))

from ..core.variables import Variable  # noqa: F401,E402 (CNTK's cntk.logging.graph exposes it)
