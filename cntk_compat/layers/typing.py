"""Type annotations for @Function signatures: ``Tensor[3]``, ``SparseTensor[10]``, ``Sequence[Tensor[3]]``."""
import inspect

import numpy as np

from ..core.axis import Axis
from ..core.hooks import provide
from ..core.variable_type import VariableType, sanitize_type
from ..variables import Record, Variable  # noqa: F401 (re-exported, as CNTK's cntk.layers.typing does)

__all__ = [
    "Tensor", "SparseTensor", "ParameterTensor", "tensor", "Sequence", "SequenceOver", "SequenceOverMeta",
    "Signature", "Axis", "Record", "Variable"
]

_FLOAT_TYPES = (np.float32, np.float64, np.float16)


def _tensor_kind(cls_name, **fields):
    class _TensorKind(type):
        def __getitem__(cls, shape):
            if not isinstance(shape, tuple):
                shape = (shape,)
            kw = dict(fields)
            if shape and shape[0] in _FLOAT_TYPES:
                kw["dtype"] = shape[0]
                shape = shape[1:]
            return VariableType(shape=None if shape == (-2,) else tuple(shape), **kw)
    return _TensorKind(cls_name, (), {})


# the axes are lists here and in SequenceOver, a tuple in Sequence, as CNTK 2.7 stores them (they show in the repr)
Tensor = _tensor_kind("Tensor", is_sparse=False, dynamic_axes=[Axis.default_batch_axis()])
SparseTensor = _tensor_kind("SparseTensor", is_sparse=True, dynamic_axes=[Axis.default_batch_axis()])
ParameterTensor = _tensor_kind("ParameterTensor", is_sparse=False, dynamic_axes=[])
tensor = Tensor[-2]


def _sequence_kind(cls_name, axes):
    class _SequenceKind(type):
        def __getitem__(cls, item_type):
            item_type = sanitize_type(item_type)
            item_axes = tuple(item_type.get("dynamic_axes", ()))
            if item_axes and item_axes != (Axis.default_batch_axis(),):
                raise TypeError("sequences over sequences are currently not supported")
            return item_type.updated_with(dynamic_axes=axes)
    return _SequenceKind(cls_name, (), {})


Sequence = _sequence_kind("Sequence", Axis.default_input_variable_dynamic_axes())


class SequenceOverMeta(type):
    def __getitem__(cls, axis):
        return _sequence_kind("Sequence", [Axis.default_batch_axis(), axis])


SequenceOver = SequenceOverMeta("SequenceOver", (), {})


def Signature(*args, **kwargs):
    """Decorator that annotates a function's parameters with CNTK types, for @Function."""
    def add_annotations(f):
        names = list(inspect.signature(f).parameters)
        if getattr(f, "__annotations__", None):
            raise ValueError("@Signature cannot be applied to functions that already have annotations")
        if len(args) + len(kwargs) != len(names):
            raise TypeError("%d annotations provided for function to be decorated, but function has %d "
                            "parameters" % (len(args) + len(kwargs), len(names)))
        annotations = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError("@Signature: the function has no parameter %r" % k)
            annotations[k] = v
        f.__annotations__ = annotations
        return f
    return add_annotations


provide(signature=Signature)  # Function.with_signature
