"""Layers composed of layers: Sequential, For, SequentialClique, ResNetBlock."""
import inspect
from functools import reduce

from ..core.function import Function
from ..ops import combine, plus
from .blocks import _inject_name, identity

__all__ = ["Sequential", "For", "SequentialClique", "ResNetBlock"]


def _apply(g, f):
    return g(*f) if isinstance(f, tuple) else g(f)


def _compose(f, g):
    """f >> g, where a tuple g applies each of its functions to f and yields the tuple of results."""
    if isinstance(g, tuple):
        return tuple(_apply(h, f) for h in g)
    return _apply(g, f)


def Sequential(layers, name=""):
    """Sequential([F, G, H])(x) == H(G(F(x))); nested lists are flattened, a tuple applies each of its items
    to the input and passes the tuple of results on as the next function's arguments."""
    if not isinstance(layers, list):
        return layers
    layers = [Sequential(layer) for layer in layers]
    composed = reduce(_compose, layers, identity)
    if isinstance(composed, tuple):
        composed = combine(list(composed))
    return _inject_name(composed, name)


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
    return _inject_name(Function(clique), name)


def ResNetBlock(f, name=""):
    """x + f(x)."""
    def skip(x):
        return plus(f(x), x)
    return _inject_name(Function(skip), name)
