"""CNTK's DictionaryValue: one value of a CNTK Dictionary (None, bool, int, float, string, list, dict or a dense
tensor), saved to and loaded from a file as the ``DictionaryValue`` message of CNTK's v2 format.

``cntk._to_cntk_dict_value`` makes one from a Python value, as CNTK 2.7 does; Function.custom_attributes
takes one and keeps its Python value.
"""
import numpy as np

from ..core.atomic_file import write_atomically
from ..core.hooks import provide
from ..core.value import NDArrayView
from . import cntk_proto as P
from .cntkv2_values import CODE_OF_DTYPE, fill_value, from_message, plain_values


class DictionaryValue(object):
    """A value of a CNTK Dictionary. ``value_type()`` is its DictionaryValue.Type code."""

    Type__none, Type_Bool, Type_Int, Type_SizeT, Type_Float, Type_Double, Type_String, Type_NDShape, Type_Axis, \
        Type_Vector, Type_Dictionary, Type_NDArrayView, Type_TrainingParameterSchedule = range(13)
    _TYPE_NAMES = ("None", "Bool", "Int", "SizeT", "Float", "Double", "String", "NDShape", "Axis", "Vector",
                   "Dictionary", "NDArrayView", "TrainingParameterSchedule")

    def __init__(self, value=None):
        self._value = _python_value(value)

    def _python_value(self):
        """The value as Python has it (a numpy array for a tensor, a list of values for a vector)."""
        return self._value

    def has_value(self):
        return self._value is not None

    def value_type(self):
        return _type_code(self._value)

    @staticmethod
    def type_name(value_type):
        """The name of a DictionaryValue.Type code ('Int', 'NDArrayView', ...)."""
        return DictionaryValue._TYPE_NAMES[int(value_type)]

    def save(self, filename):
        """Writes the value to ``filename`` as a DictionaryValue message of CNTK's v2 format."""
        message = P.DictionaryValue()
        fill_value(message, self._value)
        write_atomically(filename, message.SerializeToString(), "dictionary value file")

    @staticmethod
    def load(filename):
        """The DictionaryValue saved in ``filename``."""
        try:
            with open(filename, "rb") as f:
                data = f.read()
        except OSError as e:
            raise RuntimeError("Cannot open file '%s' for reading (%s)." % (filename, e.strerror)) from None
        message = P.DictionaryValue()
        try:
            message.ParseFromString(data)
        except Exception as e:
            raise RuntimeError("'%s' is not a saved DictionaryValue (%s)" % (filename, e)) from None
        return DictionaryValue(plain_values(from_message(message, str(filename))))

    def __eq__(self, other):
        if not isinstance(other, DictionaryValue):
            return NotImplemented
        return _equal(self._value, other._value)

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None

    def __repr__(self):
        return "DictionaryValue(%s: %r)" % (self.type_name(self.value_type()), self._value)


def _python_value(value):
    if isinstance(value, DictionaryValue):
        return value._value
    if isinstance(value, NDArrayView):
        value = value.asarray()
    if isinstance(value, np.ndarray):
        if np.dtype(value.dtype) not in CODE_OF_DTYPE:
            raise RuntimeError("NumPy array of type int8, int16, float16, float32 or float64 expected, got %s"
                               % value.dtype)
        return value.copy()
    if isinstance(value, (list, tuple)):
        return [_python_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _python_value(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str, np.integer, np.floating)):
        return value
    raise TypeError("a DictionaryValue holds None, bool, int, float, str, a list, a dict or a numpy array; got %s"
                    % type(value).__name__)


def _type_code(value):
    T = DictionaryValue
    if value is None:
        return T.Type__none
    if isinstance(value, (bool, np.bool_)):
        return T.Type_Bool
    if isinstance(value, (int, np.integer)):
        return T.Type_Int
    if isinstance(value, (float, np.floating)):
        return T.Type_Double
    if isinstance(value, str):
        return T.Type_String
    if isinstance(value, list):
        return T.Type_Vector
    if isinstance(value, dict):
        return T.Type_Dictionary
    return T.Type_NDArrayView


def _equal(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype and \
            a.shape == b.shape and bool(np.array_equal(a, b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def to_dictionary_value(py_value):
    """CNTK's _to_cntk_dict_value: a DictionaryValue holding a Python value (a numpy array as a tensor)."""
    return DictionaryValue(py_value)


provide(dictionary_value=DictionaryValue)  # cntk_py.DictionaryValue and cntk.internal.utils (lower floors) take it
