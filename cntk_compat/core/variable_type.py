"""CNTK's type records (``Tensor[2]``, ``Sequence[SparseTensor[10]]``) and their use in @Function signatures."""
import numpy as np

from ..default_options import default_override_or, get_default_override
from .axis import Axis
from .type_string import type_string
from .variables import Variable, new_placeholder, sanitize_shape


class VariableType(dict):
    """An immutable record of shape / dtype / is_sparse / dynamic_axes: str() is the type as written
    (``Sequence[Tensor[3]]``), repr() the record's fields, as CNTK 2.7 prints them."""

    def __init__(self, shape=None, dtype=None, needs_gradient=None, is_sparse=None, dynamic_axes=None):
        fields = dict(shape=shape, dtype=dtype, needs_gradient=needs_gradient, is_sparse=is_sparse,
                      dynamic_axes=dynamic_axes)
        super(VariableType, self).__init__({k: v for k, v in fields.items() if v is not None})

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def __setattr__(self, key, value):
        raise AttributeError("type records are immutable")

    def updated_with(self, **kwargs):
        d = dict(self)
        d.update(kwargs)
        return VariableType(**d)

    def __call__(self):
        raise TypeError("abstract type %s cannot be instantiated; use 'input_variable(**%s)' instead"
                        % (self, self))

    @property
    def shape_is_known(self):
        return "shape" in self

    def __str__(self):
        return type_string(self.get("shape"), self.get("dtype"), self.get("is_sparse", False),
                           tuple(self.get("dynamic_axes", ())))

    __repr__ = dict.__repr__

    def __hash__(self):
        return hash(str(self))


def sanitize_type(t):
    """A type from what CNTK 2.7 takes for one: ``float`` is a scalar of the default type (printed ``float``),
    numpy's float types scalars of that type, ints and tuples of ints shapes."""
    batch = [Axis.default_batch_axis()]
    if t is float:
        return VariableType(shape=(), is_sparse=False, dynamic_axes=batch)
    if t is np.float32 or t is np.float64 or t is np.float16:
        return VariableType(shape=(), dtype=t, is_sparse=False, dynamic_axes=batch)
    if isinstance(t, (int, np.integer)) and not isinstance(t, bool):  # a shape: update_signature(5)
        return VariableType(shape=(int(t),), dynamic_axes=(Axis.default_batch_axis(),))
    if isinstance(t, tuple) and t and all(isinstance(d, (int, np.integer)) for d in t):
        return VariableType(shape=tuple(int(d) for d in t), dynamic_axes=(Axis.default_batch_axis(),))
    return t


def variable_from_annotation(name, annotation):
    t = sanitize_type(annotation)
    if isinstance(t, VariableType):
        return input_from_type(t, name)
    return new_placeholder(name=name)


def input_from_type(t, name=""):
    t = sanitize_type(t)
    if not isinstance(t, VariableType):
        raise TypeError("expected a CNTK type such as Tensor[3] or Sequence[Tensor[3]], got %r" % (t,))
    axes = t.get("dynamic_axes", (Axis.default_batch_axis(),))
    dtype = t.get("dtype") or get_default_override(None, dtype=default_override_or(np.float32))  # CNTK's input
    return Variable(shape=sanitize_shape(t.get("shape", ())), dtype=dtype,
                    needs_gradient=t.get("needs_gradient", False), is_sparse=t.get("is_sparse", False),
                    dynamic_axes=axes, name=name)


Variable._Type = VariableType
