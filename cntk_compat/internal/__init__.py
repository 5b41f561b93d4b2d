"""Helpers CNTK exposes under cntk.internal and that its users and tests import."""
from ..core.dtypes import sanitize_dtype as _sanitize_dtype
from ..core.variables import sanitize_shape
from .utils import sanitize_input


def sanitize_dtype_cntk(dtype):
    """CNTK normalizes dtypes to its own enum; here the canonical numpy dtype type serves."""
    dt = _sanitize_dtype(dtype)
    return None if dt is None else dt.type


def sanitize_dtype_numpy(dtype):
    return sanitize_dtype_cntk(dtype)


def _value_as_sequence_or_array(val, var):
    """A Value as numpy: a list of per-sequence arrays when var has a sequence axis, else one array."""
    if len(var.dynamic_axes) > 1:
        return val.as_sequences(var)
    return val.asarray()


__all__ = ["sanitize_dtype_cntk", "sanitize_dtype_numpy", "sanitize_shape", "sanitize_input"]
