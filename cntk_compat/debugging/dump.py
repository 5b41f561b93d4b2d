"""Printing a Function's signature and every node of its graph (CNTK's dump_signature / dump_function).

dump_function prints one line per node, found by a depth-first walk into blocks:
``  <op name, 20 wide> <name, 30 wide> <inputs> -> <outputs>``. Unnamed nodes get letter names (a, b, ...,
z, ba, ...; a Function's outputs are named before its inputs, as CNTK names them); a type is
``[dynamic axes](static shape)`` with the batch axis as ``b*``, unknown axes as ``?`` and every other dynamic axis
the letter 12 places after the number of axes named so far (``m*`` when it is the first, ``n*`` after ``b*``),
announced by an ``  Axis <name> == <letter>*`` line when first met.
"""
from ..core.function import Function
from ..core.graph import depth_first_search
from ..core.variables import Constant, Parameter

__all__ = ["dump_signature", "dump_function"]


def dump_signature(root, tag=None):
    """Prints the signature of ``root`` (its str: name, op, argument types, output type)."""
    print(str(root))


def _letters(n):
    """0 -> 'a', 25 -> 'z', 26 -> 'ba', ...: base 26 with the letters as digits."""
    return (_letters(n // 26) if n >= 26 else "") + chr(ord("a") + n % 26)


class _Namer(object):
    """Names nodes and dynamic axes for one dump, announcing each new axis name."""

    _FIRST_AXIS_LETTER = 12  # 'm'
    _KNOWN_AXES = {"defaultBatchAxis": "b*", "UnknownAxes": "?"}

    def __init__(self):
        self.nodes = {}
        self.axes = {}      # every axis named so far, the batch and unknown axes included (they count)

    def node(self, item):
        if item.name:
            return item.name
        if item.uid not in self.nodes:
            self.nodes[item.uid] = _letters(len(self.nodes))
        return self.nodes[item.uid]

    def axis(self, axis):
        if axis.name not in self.axes:
            letter = self._KNOWN_AXES.get(axis.name)
            if letter is None:
                letter = _letters(len(self.axes) + self._FIRST_AXIS_LETTER) + "*"
                print("  Axis", axis.name, "==", letter)
            self.axes[axis.name] = letter
        return self.axes[axis.name]

    def type_of(self, var):
        axes = var.dynamic_axes
        prefix = "[" + ",".join(self.axis(a) for a in axes) + "]" if axes else ""
        return prefix + str(var.shape)

    def typed(self, variables):
        return "(" + ", ".join(self.node(v) + ":" + self.type_of(v) for v in variables) + ")"


def _leaf_kind(var):
    for kind in ("parameter", "placeholder", "input", "constant"):
        if getattr(var, "is_" + kind):
            return kind.capitalize()
    return "Variable"


def _line(item, namer):
    if isinstance(item, Function):
        f = item.root_function  # a block's inner graph is reached as a composite: show its root op
        name = namer.node(f)
        outputs = namer.typed(f.outputs)    # named before the inputs, as CNTK's dump names them
        return f.op_name, name, namer.typed(f.inputs) + " -> " + outputs
    # a leaf's line has CNTK's empty inputs column before its type, so its type stands one space further right
    name = namer.node(item)
    if isinstance(item, (Constant, Parameter)):
        return type(item).__name__, name, " " + namer.type_of(item)
    return _leaf_kind(item), name + " " + item.uid, " " + namer.type_of(item)


def dump_function(root, tag=None):
    """Prints the signature of ``root``, then every node of its graph (looking into blocks)."""
    nodes = depth_first_search(root.root_function, lambda node: True, depth=-1)
    namer = _Namer()
    dump_signature(root, tag)
    for item in nodes:
        op_name, name, types = _line(item, namer)
        print("  {:20} {:30} {}".format(op_name, name, types))
