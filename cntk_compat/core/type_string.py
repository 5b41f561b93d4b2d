"""The printed type of a Variable, as CNTK writes it: Tensor[2], SparseTensor[2], Sequence[Tensor[3]]..."""
import numpy as np

from .axis import BATCH_AXIS_NAME, SEQUENCE_AXIS_NAME, UNKNOWN_AXES_NAME


def type_string(shape, dtype, is_sparse, dynamic_axes):
    """shape None means not yet known."""
    has_axes = len(dynamic_axes) > 0
    dtype = np.dtype(dtype) if dtype is not None else None
    if shape is None:
        s = "tensor"
    elif shape == ():
        s = {np.dtype(np.float64): "np.float64", np.dtype(np.float16): "np.float16",
             np.dtype(np.float32): "np.float32"}.get(dtype, "float")  # no dtype yet (Tensor[()]): "float"
    else:
        prefix = {np.dtype(np.float64): "np.float64,", np.dtype(np.float16): "np.float16,"}.get(dtype, "")
        s = "Tensor[" + prefix + ",".join(str(d) for d in shape) + "]"
        if is_sparse:
            s = "Sparse" + s
        elif not has_axes:
            s = "Parameter" + s
    for axis in reversed(tuple(dynamic_axes)):
        if axis.name == BATCH_AXIS_NAME:
            continue
        if axis.name in (SEQUENCE_AXIS_NAME, UNKNOWN_AXES_NAME):
            t = "Sequence"
        else:
            t = "SequenceOver[" + axis.name + "]"
        s = t + "[" + s + "]"
    return s
