"""cntk.internal.swig_helper: in CNTK these turn objects returned by the native (SWIG) layer into the Python
classes that wrap them. cntk-compat has no native layer: every object already is its Python class, so there
is nothing to convert, and both return what they are given."""
from functools import wraps

__all__ = ["map_if_possible", "typemap"]


def map_if_possible(obj):
    """Returns ``obj``: it already has its Python class (CNTK re-classes native objects in place here)."""
    return obj


def typemap(f):
    """Decorator that passes ``f``'s result through map_if_possible (kept for code that decorates with it)."""
    @wraps(f)
    def wrapper(*args, **kwargs):
        return map_if_possible(f(*args, **kwargs))
    return wrapper
