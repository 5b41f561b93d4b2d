"""Python operator overloads shared by Variables and Functions (`a + b`, `-a`, `a @ W`, `a[0:2]`).

The ops package provides the operations (core.hooks)."""
from .hooks import hook


class TensorOpsMixin(object):
    __slots__ = ()

    def __add__(self, other):
        return hook("plus")(self, other)

    def __radd__(self, other):
        return hook("plus")(other, self)

    def __sub__(self, other):
        return hook("minus")(self, other)

    def __rsub__(self, other):
        return hook("minus")(other, self)

    def __mul__(self, other):
        return hook("element_times")(self, other)

    def __rmul__(self, other):
        return hook("element_times")(other, self)

    def __matmul__(self, other):
        return hook("times")(self, other)

    def __rmatmul__(self, other):
        return hook("times")(other, self)

    def __truediv__(self, other):
        return hook("element_divide")(self, other)

    def __rtruediv__(self, other):
        return hook("element_divide")(other, self)

    __div__ = __truediv__
    __rdiv__ = __rtruediv__

    def __abs__(self):
        return hook("abs")(self)

    def __neg__(self):
        return hook("negate")(self)

    def __pow__(self, other):
        return hook("pow")(self, other)

    def __rpow__(self, other):
        return hook("pow")(other, self)

    def __getitem__(self, key):
        return hook("getitem")(self, key)
