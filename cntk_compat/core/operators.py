"""Python operator overloads shared by Variables and Functions (`a + b`, `-a`, `a @ W`, `a[0:2]`)."""


def _ops():
    from .. import ops
    return ops


class TensorOpsMixin(object):
    def __add__(self, other):
        return _ops().plus(self, other)

    def __radd__(self, other):
        return _ops().plus(other, self)

    def __sub__(self, other):
        return _ops().minus(self, other)

    def __rsub__(self, other):
        return _ops().minus(other, self)

    def __mul__(self, other):
        return _ops().element_times(self, other)

    def __rmul__(self, other):
        return _ops().element_times(other, self)

    def __matmul__(self, other):
        return _ops().times(self, other)

    def __rmatmul__(self, other):
        return _ops().times(other, self)

    def __truediv__(self, other):
        return _ops().element_divide(self, other)

    def __rtruediv__(self, other):
        return _ops().element_divide(other, self)

    __div__ = __truediv__
    __rdiv__ = __rtruediv__

    def __abs__(self):
        return _ops().abs(self)

    def __neg__(self):
        return _ops().negate(self)

    def __pow__(self, other):
        return _ops().pow(self, other)

    def __rpow__(self, other):
        return _ops().pow(other, self)

    def __getitem__(self, key):
        return _ops().getitem(self, key)
