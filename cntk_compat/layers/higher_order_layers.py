"""Layers composed of layers: Sequential, For, SequentialClique, ResNetBlock."""
import inspect
from functools import reduce

from ..core.function import Function
from ..ops import combine, plus
from .building import _inject_name, identity

__all__ = [
    "Sequential", "For", "SequentialClique", "ResNetBlock", "identity"
]


def _compose(f, g):
    """f >> g (Function.__rshift__: CNTK's rules for tuples and multi-output functions); a layer may have
    returned a Variable."""
    return (f if isinstance(f, Function) else combine([f])) >> g


def Sequential(layers, name=""):
    """Sequential([F, G, H])(x) == H(G(F(x))); nested lists are flattened, a tuple applies each of its items
    to the input and passes the tuple of results on as the next function's arguments."""
    if not isinstance(layers, list):
        return layers
    layers = [Sequential(layer) for layer in layers]
    return _inject_name(reduce(_compose, layers, identity), name)


def For(what_range, constructor, name=""):
    """Sequential([constructor(i) for i in what_range]); constructor may also take no argument."""
    if not inspect.isfunction(constructor):
        raise TypeError("For: constructor must be a Python function (e.g. a lambda) that takes no argument or the "
                        "index, got %s" % type(constructor).__name__)
    takes_arg = len(inspect.signature(constructor).parameters) > 0
    layers = [constructor(i) if takes_arg else constructor() for i in what_range]
    return _inject_name(Sequential(layers), name)


def SequentialClique(functions, name=""):
    """Each function is applied to the sum of the input and the outputs of all functions before it."""
    def clique(x):
        for f in functions:
            out = f(x)
            x = plus(x, out)
        return out
    return _inject_name(clique, name)   # as in CNTK 2.7: the Python function itself unless it is named


def ResNetBlock(f, name=""):
    """x + f(x)."""
    def skip(x):
        return plus(f(x), x)
    return _inject_name(skip, name)   # as in CNTK 2.7: the Python function itself unless it is named
