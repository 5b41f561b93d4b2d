"""cntk.internal.sanitize: the argument normalizers CNTK's Python layer (and code written against it) uses.

Where CNTK converts to its native, column-major conventions (axes, permutations, dynamic axes, convolution
flags), these do the same conversion, so they return what CNTK's return; cntk-compat's own operators take
Python-order arguments and do not call them.
"""
import collections.abc
import numbers

import numpy as np

from ..axis import Axis
from ..core.dtypes import (DataType_Double, DataType_Float, DataType_Float16, DataType_Int16, DataType_Int8,
                           DataType_Unknown, data_type_code)
from .swig_helper import typemap
from .utils import sanitize_input
from ..core.variables import sanitize_shape as _sanitize_shape
from ..io._number_pairs import number_pair, number_range

__all__ = ["Axis", "typemap", "is_string", "is_byte_buffer", "sanitize_precision", "sanitize_shape",
           "sanitize_input", "sanitize_2d_number", "sanitize_range", "sanitize_batch", "sanitize_value",
           "sanitize_function", "sanitize_variable_or_function", "sanitize_variables_or_functions",
           "sanitize_var_map", "data_type_to_dtype", "sanitize_dtype_numpy", "sanitize_dtype_cntk", "sanitize_axis",
           "sanitize_axis_list", "sanitize_multi_axis_reduction_list", "sanitize_dynamic_axes",
           "sanitize_variable_value_dict", "sanitize_pooling_args", "sanitize_convolution_args",
           "sanitize_Function_attributes", "sanitize_permutation", "sanitize_random_args", "bounded_cache"]

_DTYPE_OF_CODE = {DataType_Float: np.float32, DataType_Double: np.float64,
                  DataType_Float16: np.float16, DataType_Int8: np.int8,
                  DataType_Int16: np.int16}


def is_string(s):
    return isinstance(s, str)


def is_byte_buffer(s):
    return isinstance(s, (bytes, bytearray))


def _as_tuple(x):
    return (x,) if np.isscalar(x) else tuple(x)


def sanitize_shape(shape):
    """A tuple from a scalar or a sequence of dimensions (None is CNTK's TypeError)."""
    if shape is None:
        raise TypeError("sanitize_shape: expected an int or a sequence of ints, got None")
    return _sanitize_shape(shape)


def sanitize_precision(precision):
    """The numpy type of a precision given as a name ('float', 'double', ...), numpy type or DataType code."""
    names = {"float": np.float32, "float32": np.float32, "double": np.float64, "float64": np.float64,
             "float16": np.float16, "int8": np.int8, "int8_t": np.int8, "int16": np.int16, "int16_t": np.int16}
    if isinstance(precision, str) and precision in names:
        return names[precision]
    if isinstance(precision, numbers.Integral) and not isinstance(precision, bool):
        if precision == DataType_Unknown:
            return None
        if precision in _DTYPE_OF_CODE:
            return _DTYPE_OF_CODE[precision]
    elif precision in (np.float32, np.float64, np.float16, np.int8, np.int16):
        return precision
    raise ValueError('precision value: "%s" is not supported' % (precision,))


def data_type_to_dtype(data_type):
    """The numpy type of a CNTK DataType code (object for DataType_Unknown)."""
    if data_type == DataType_Unknown:
        return object
    if data_type in _DTYPE_OF_CODE:
        return _DTYPE_OF_CODE[data_type]
    raise ValueError("data_type %s is not supported" % (data_type,))


def sanitize_dtype_numpy(dtype):
    """The numpy type CNTK stores data of this dtype in (Python int and numpy ints become float32)."""
    if isinstance(dtype, str):
        by_name = {"float": np.float32, "float32": np.float32, "double": np.float64, "float64": np.float64,
                   "float16": np.float16, "int8": np.int8, "int16": np.int16}
        if dtype in by_name:
            return by_name[dtype]
    elif dtype is int:
        return np.float32
    elif dtype is float:
        return np.float64
    else:
        try:
            dt = np.dtype(dtype)
        except TypeError:
            dt = None
        if dt is not None:
            if dt in (np.dtype(np.int8), np.dtype(np.int16)):
                return dt.type
            if dt.kind in "iu":
                return np.float32
            if dt in (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float16)):
                return dt.type
    raise ValueError('data type "%s" is not supported' % (dtype,))


def sanitize_dtype_cntk(dtype):
    """CNTK's DataType code of a dtype (DataType_Unknown for None; a code passes through)."""
    if isinstance(dtype, numbers.Integral) and (dtype in _DTYPE_OF_CODE or dtype == DataType_Unknown):  # bools too
        return dtype   # as given, as CNTK 2.7 returns it
    if dtype is None or dtype is object:
        return DataType_Unknown
    return data_type_code(sanitize_dtype_numpy(dtype))


def sanitize_2d_number(x):
    """(x, x) for a number, a pair of numbers unchanged."""
    return number_pair(x)


def sanitize_range(x):
    """A (low, high) pair with low <= high, from a number or a pair."""
    return number_range(x)


def sanitize_batch(var, batch, seq_starts=None, device=None):
    """``batch`` (array, list of sequences / CSR matrices, or a Value) as a Value for ``var``."""
    from ..core.value import Value
    if isinstance(batch, Value):
        if seq_starts is not None:
            raise ValueError("for directly passed Value objects sequence starts cannot be used yet.")
        return batch
    if seq_starts and len(var.dynamic_axes) <= 1:
        raise ValueError("you specified sequence begin markers, but your input does not contain a sequence axis.")
    return Value.create(var, batch, seq_starts, device)


def sanitize_value(shape, value, dtype, device):
    """An NDArrayView of ``value`` (a zero-filled one of ``shape`` when value is None)."""
    from ..core.value import NDArrayView
    if value is None:
        if shape is None:
            raise ValueError("you need to specify at least shape or value")
        return NDArrayView(shape, sanitize_dtype_numpy(dtype), device)
    np_dtype = sanitize_dtype_numpy(dtype)
    if isinstance(value, np.ndarray):
        value = value.astype(np_dtype, copy=False)
    elif np.isscalar(value) and shape:
        value = np.full(shape, value, dtype=np_dtype)
    else:
        value = np.asarray(value, dtype=np_dtype)
    return NDArrayView.from_dense(value, device)


def sanitize_function(arg):
    """A Function from a Function or a Variable (wrapped with combine)."""
    from ..core.function import Function
    from ..core.variables import Variable
    from ..ops import combine
    if isinstance(arg, Variable):
        arg = combine([arg])
    if not isinstance(arg, Function):
        raise TypeError("Object of type %s cannot be cast to Variable" % type(arg))
    return arg


def sanitize_variable_or_function(arg):
    from ..core.function import Function
    from ..core.variables import Variable
    if isinstance(arg, (Variable, Function)):
        return arg
    raise TypeError("expected an instance of Variable or single-output Function, but got '%s' instead" % type(arg))


def sanitize_variables_or_functions(arg):
    """A list of Variables / Functions from one or an iterable of them."""
    if isinstance(arg, collections.abc.Iterable):
        items = list(arg)
        try:
            return [sanitize_variable_or_function(o) for o in items]
        except TypeError:
            raise TypeError("expected list of Variables or single-output Functions, but got [%s] instead"
                            % ", ".join(str(type(o)) for o in items)) from None
    return [sanitize_variable_or_function(arg)]


def sanitize_var_map(op_arguments, arguments, precision=None, device=None, extract_values_from_minibatch_data=True):
    """A dict Variable -> Value from the ways CNTK accepts arguments (dict by variable or name, a single array
    for a single input, a (data, seq_starts) tuple, MinibatchData)."""
    from ..core.value import Value
    from ..io import MinibatchData
    seq_starts = None
    if isinstance(arguments, tuple):
        arguments, seq_starts = arguments
    if arguments is None or (isinstance(arguments, (dict, list)) and len(arguments) == 0):
        if len(op_arguments) > 0:
            raise ValueError("function expects %i arguments" % len(op_arguments))
        return {}
    if isinstance(arguments, Value):
        if len(op_arguments) != 1:
            raise ValueError("your graph has %i inputs, but you specified only one" % len(op_arguments))
        arguments = {op_arguments[0]: arguments}
    if not isinstance(arguments, dict):
        if len(op_arguments) != 1:
            raise ValueError("non-dict argument (%s) is not supported for nodes with more than one input"
                             % type(arguments).__name__)
        arguments = {op_arguments[0]: arguments}
    names = collections.Counter(v.name for v in op_arguments)
    by_name = {v.name: v for v in op_arguments}
    if precision is not None:
        sanitize_precision(precision)
    var_map = {}
    for var, batch in arguments.items():
        if isinstance(var, str):
            if names[var] == 0:
                raise ValueError('variable with name "%s" does not exist in the network. Available variable names: '
                                 '%s' % (var, ", ".join(by_name)))
            if names[var] > 1:
                raise ValueError('node name "%s" is not unique' % var)
            var = by_name[var]
        starts = seq_starts
        if isinstance(batch, tuple):
            if seq_starts is not None:
                raise ValueError("you cannot provide sequence start information globally and for individual "
                                 "batches at the same time")
            batch, starts = batch
            if starts is not None:
                if not isinstance(starts, (tuple, list)):
                    raise ValueError("if you specify sequence begin markers, it needs to be a list")
                count = batch.shape[0] if hasattr(batch, "shape") else len(batch)
                if len(starts) != count:
                    raise ValueError("you have %i sequences, but only %i sequence begin markers"
                                     % (count, len(starts)))
        if starts is not None and isinstance(batch, Value):
            raise ValueError("for directly passed Value objects sequence starts cannot be used yet.")
        if isinstance(batch, MinibatchData) and extract_values_from_minibatch_data:
            batch = batch.data
        if not isinstance(batch, (MinibatchData, Value)):
            batch = sanitize_batch(var, batch, starts, device)
        var_map[var] = batch
    return var_map


def sanitize_axis(axis):
    """CNTK's native axis for a Python axis: None -> all static axes, int i -> the column-major static axis
    -i-1, an Axis -> itself (a static one converted the same way)."""
    if axis is None:
        return Axis.all_static_axes()
    if isinstance(axis, numbers.Integral):
        return Axis(-int(axis) - 1)
    if axis.is_static_axis and axis.static_axis_index() != Axis.new_leading_axis().static_axis_index():
        return Axis(-1 - axis.static_axis_index())
    return axis


def sanitize_axis_list(axes):
    if type(axes) not in (list, tuple):
        axes = [axes]
    return [sanitize_axis(a) for a in axes]


def sanitize_multi_axis_reduction_list(axes):
    """sanitize_axis_list for a reduction over several axes, which cannot include a sequence axis."""
    if type(axes) not in (list, tuple):
        axes = [axes]
    for a in axes:
        if isinstance(a, Axis) and a.is_sequence_axis:
            raise ValueError("Reduction operation over multiple axes can not contain sequence axis: %s" % (a,))
    return [sanitize_axis(a) for a in axes]


def sanitize_dynamic_axes(axes):
    """Dynamic axes in CNTK's native (reversed) order."""
    if type(axes) not in (list, tuple):
        axes = [axes]
    for a in axes:
        if not isinstance(a, Axis):
            raise TypeError("type Axis expected, got %s instead" % type(a))
    return tuple(reversed(axes))


def sanitize_variable_value_dict(var_value_dict):
    """The only value of a one-entry dict, else the dict."""
    if len(var_value_dict) > 1:
        return var_value_dict
    return list(var_value_dict.values())[0]


def sanitize_pooling_args(pooling_window_shape, strides, auto_padding):
    """(window, strides, auto_padding) with auto_padding in native (reversed) order."""
    return _as_tuple(pooling_window_shape), _as_tuple(strides), list(reversed(auto_padding))


def sanitize_convolution_args(strides, sharing, auto_padding):
    """(strides, sharing, auto_padding) with sharing and auto_padding in native (reversed) order."""
    return _as_tuple(strides), list(reversed(sharing)), list(reversed(auto_padding))


def sanitize_Function_attributes(attributes):
    """A native attribute dict with 'sharing' and 'autoPadding' turned back into Python order (in place)."""
    for key in ("sharing", "autoPadding"):
        if key in attributes:
            attributes[key] = list(reversed(attributes[key]))
    return attributes


def sanitize_permutation(perm):
    """A Python-order axis permutation (negative entries allowed) as the permutation of the reversed axes."""
    n = len(perm)
    if not all(-n <= i < n for i in perm):
        raise ValueError("invalid permutation element: elements must be from {-len(perm), ..., len(perm)-1}")
    positive = [p if p >= 0 else n + p for p in perm]
    if n != len(set(positive)):
        raise ValueError("duplicate item in permutation")
    return [n - i - 1 for i in reversed(positive)]


def sanitize_random_args(shape, dtype):
    """(shape tuple, DataType code) of a random op, the dtype defaulting to the default_options' or float32."""
    from ..default_options import get_default_override
    dtype = get_default_override(None, dtype=dtype)
    return _as_tuple(shape), sanitize_dtype_cntk(np.float32 if dtype is None else dtype)


def bounded_cache(maxsize):
    """A memoizing decorator for functions of hashable positional arguments that forgets everything once
    ``maxsize`` results are held."""
    def memoize(func):
        class Memo(dict):
            def __call__(self, *args):
                return self[args]

            def __missing__(self, key):
                if len(self) >= maxsize:
                    self.clear()
                self[key] = result = func(*key)
                return result
        return Memo()
    return memoize
