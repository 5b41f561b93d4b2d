"""The symbolic CNTK graph and its lowering to PyTorch.

As ``cntk.core`` this package also exposes CNTK's public core names (Value, NDArrayView, asarray, asvalue).
"""
from . import engine, feeding, serialization  # noqa: F401 (they provide Function.eval, Value.create, f.save: hooks)
from .device import DeviceKind, cpu, use_default_device
from .hooks import hook
from .value import NDArrayView, Value


def asarray(value, dtype=None):
    """A numpy array from a Value, NDArrayView or array-like."""
    import numpy as np
    if isinstance(value, (Value, NDArrayView)):
        arr = value.asarray()
    else:
        arr = np.asarray(value)
    return arr.astype(dtype) if dtype is not None else arr


def asvalue(variable, data_array):
    """A Value for ``variable`` holding ``data_array`` (a Value as it is), laid out as Value.create lays it out."""
    if isinstance(data_array, Value):
        return data_array
    return Value.create(variable, data_array)


def __getattr__(name):
    # cntk.core.user_function lives in the ops package, which provides it
    if name == "user_function":
        return hook("user_function")
    raise AttributeError("module 'cntk.core' has no attribute %r" % name)


__all__ = [
    "NDArrayView", "Value", "asarray", "asvalue", "DeviceKind", "cpu", "use_default_device", "user_function"
]
