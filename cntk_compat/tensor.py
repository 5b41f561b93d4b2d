"""cntk.tensor: the operator overloads of Variables and Functions, and the asarray() of data holders."""
import numpy as np
import torch

from .core.operators import TensorOpsMixin

# the dunder methods (without underscores) that TensorOpsMixin overloads, as CNTK lists them
AVAILABLE_TENSOR_OPS = ['abs', 'add', 'div', 'getitem', 'matmul', 'mul', 'radd', 'rdiv', 'rmatmul', 'rmul',
                        'rsub', 'rtruediv', 'sub', 'truediv', 'neg']


class ArrayMixin(object):
    """asarray() for classes holding data in a ``tensor`` attribute (Constant, Parameter, NDArrayView, Value)."""

    def asarray(self):
        data = getattr(self, "tensor", None)
        if not isinstance(data, torch.Tensor):
            raise TypeError("asarray: %s holds no tensor data" % type(self).__name__)
        return np.array(data.detach().cpu().numpy())


__all__ = ["TensorOpsMixin", "ArrayMixin", "AVAILABLE_TENSOR_OPS"]
