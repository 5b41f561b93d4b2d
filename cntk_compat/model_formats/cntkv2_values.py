"""CNTK v2 Dictionary messages as plain Python values, and back.

Facts of the format carried here: CNTK stores shapes column-major (the first dimension is the innermost,
the reverse of the Python shape); tensor values are flattened in that same order, so reversing the shape
gives a C-order numpy array with no transposition; static axis k counts from the innermost axis (Python
axis -(k+1)); a few index values are sentinels for "every static axis", "the dynamic axes" and so on.
"""
import numpy as np

from . import cntk_proto as P

# NDArrayView.DataType and CNTK's DataType enum share these numbers
DTYPE_OF_CODE = {1: np.dtype(np.float32), 2: np.dtype(np.float64), 4: np.dtype(np.float16),
                 5: np.dtype(np.int8), 6: np.dtype(np.int16)}
CODE_OF_DTYPE = {v: k for k, v in DTYPE_OF_CODE.items()}

FORMAT_VERSION = 2  # the version CNTK 2.7 writes in every Dictionary and DictionaryValue

SIZE_T_INFERRED = (1 << 64) - 1  # NDShape::InferredDimension
SIZE_T_FREE = (1 << 64) - 3      # NDShape::FreeDimension
SIZE_T_UNKNOWN = (1 << 64) - 2   # the one dimension of NDShape::Unknown() (an unbound placeholder's shape)

AXIS_DYNAMIC = 2 ** 31 - 1       # Axis sentinels (static_axis_idx of a non-static axis)
AXIS_ALL_STATIC = 2 ** 31 - 2
AXIS_UNKNOWN = 2 ** 31 - 3
AXIS_END_STATIC = 2 ** 31 - 4
AXIS_ALL = 2 ** 31 - 5


class Shape(tuple):
    """An NDShape value, in Python order (outermost first)."""


class StoredAxis(object):
    """An Axis value as the file has it."""
    __slots__ = ("index", "name", "ordered")

    def __init__(self, index, name, ordered):
        self.index, self.name, self.ordered = index, name, ordered

    def __repr__(self):
        return "StoredAxis(%d, %r)" % (self.index, self.name)


class StoredArray(object):
    """An NDArrayView value (dense), as a numpy array in Python order."""
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array


def plain_values(value):
    """A stored dictionary value as plain Python values: StoredArrays as their numpy arrays, in lists and dicts
    too."""
    if isinstance(value, StoredArray):
        return value.array
    if isinstance(value, list):
        return [plain_values(v) for v in value]
    if isinstance(value, dict):
        return {k: plain_values(v) for k, v in value.items()}
    return value


def _dim_from_file(d):
    if d == SIZE_T_INFERRED:
        return -1
    if d == SIZE_T_FREE:
        return -3
    if d == SIZE_T_UNKNOWN:
        return -2
    return int(d)


def _dim_to_file(d):
    if d == -1:
        return SIZE_T_INFERRED
    if d == -3:
        return SIZE_T_FREE
    if d == -2:
        return SIZE_T_UNKNOWN
    return int(d)


def shape_from_file(message):
    return Shape(_dim_from_file(d) for d in reversed(message.shape_dim))


def _array_from_file(view, where):
    dtype = DTYPE_OF_CODE.get(view.data_type)
    if dtype is None:
        raise ValueError("%s: tensor of unknown data type %d" % (where, view.data_type))
    shape = tuple(shape_from_file(view.shape))
    kind = view.WhichOneof("values")
    if kind == "float_values":
        flat = np.array(view.float_values.value, dtype=np.float32)
    elif kind == "double_values":
        flat = np.array(view.double_values.value, dtype=np.float64)
    elif kind == "sint32_values":
        flat = np.array(view.sint32_values.value, dtype=np.int32)
    elif kind == "bytes_value":
        flat = np.frombuffer(view.bytes_value.value, dtype=dtype).copy()
    else:
        flat = np.zeros(0, dtype)
    n = int(np.prod(shape)) if shape else 1
    if view.storage_format != 0 and flat.size != n:
        # CNTK's serializer stores every tensor's values densely (all shape.TotalSize() of them), sparse or not;
        # a sparse-flagged tensor with its values so stored loads as a dense one
        raise ValueError("%s: a sparse stored tensor (storage format %d) holds %d values, not the %d of its dense "
                         "layout (the only layout CNTK's serializer writes)" % (where, view.storage_format, flat.size, n))
    if flat.size != n:
        raise ValueError("%s: tensor of shape %s holds %d values, expected %d" % (where, shape, flat.size, n))
    return StoredArray(flat.astype(dtype).reshape(shape))


def from_message(value, where="model"):
    """A DictionaryValue as a Python value: dict, list, bool, int, float, str, Shape, StoredAxis, StoredArray."""
    kind = value.WhichOneof("value")
    if kind is None:
        return None
    x = getattr(value, kind)
    if kind == "dictionary_value":
        return dictionary_from_message(x, where)
    if kind == "vector_value":
        return [from_message(v, where) for v in x.value]
    if kind == "nd_shape_value":
        return shape_from_file(x)
    if kind == "axis_value":
        return StoredAxis(x.static_axis_idx, x.name, x.is_ordered_dynamic_axis)
    if kind == "nd_array_view_value":
        return _array_from_file(x, where)
    if kind == "size_t_value" or kind == "int_value":
        return int(x)
    return x


def dictionary_from_message(message, where="model"):
    return {key: from_message(message.data[key], "%s/%s" % (where, key)) for key in message.data}


# ------------------------------------------------------------------------------------------------ writing
def fill_value(target, value):
    """Fill the DictionaryValue ``target`` from a Python value (the inverse of from_message)."""
    target.version = FORMAT_VERSION
    T = P.DictionaryValue
    if value is None:
        target.value_type = T.None_ if hasattr(T, "None_") else 0
    elif isinstance(value, bool):
        target.value_type = T.Bool
        target.bool_value = value
    elif isinstance(value, SizeT):
        target.value_type = T.SizeT
        target.size_t_value = int(value)
    elif isinstance(value, (int, np.integer)):
        target.value_type = T.Int
        target.int_value = int(value)
    elif isinstance(value, Float32):
        target.value_type = T.Float
        target.float_value = float(value)
    elif isinstance(value, (float, np.floating)):
        target.value_type = T.Double
        target.double_value = float(value)
    elif isinstance(value, str):
        target.value_type = T.String
        target.string_value = value
    elif isinstance(value, Shape):
        target.value_type = T.NDShape
        target.nd_shape_value.shape_dim.extend(_dim_to_file(d) for d in reversed(value))
    elif isinstance(value, StoredAxis):
        target.value_type = T.Axis
        target.axis_value.static_axis_idx = value.index
        target.axis_value.name = value.name
        target.axis_value.is_ordered_dynamic_axis = value.ordered
    elif isinstance(value, list):
        target.value_type = T.Vector
        target.vector_value.SetInParent()
        for v in value:
            fill_value(target.vector_value.value.add(), v)
    elif isinstance(value, dict):
        target.value_type = T.Dictionary
        dictionary_to_message(value, target.dictionary_value)
    elif isinstance(value, np.ndarray):
        target.value_type = T.NDArrayView
        _array_to_file(value, target.nd_array_view_value)
    else:
        raise ValueError("save: a value of type %s has no form in CNTK's format" % type(value).__name__)


class SizeT(int):
    """An int the file holds as size_t (the format distinguishes it from a signed int)."""


class Float32(float):
    """A float the file holds in single precision."""


def _array_to_file(array, view):
    dtype = np.dtype(array.dtype)
    if dtype not in CODE_OF_DTYPE:
        raise ValueError("save: tensors of type %s have no form in CNTK's format" % dtype)
    view.data_type = CODE_OF_DTYPE[dtype]
    view.storage_format = 0
    view.shape.shape_dim.extend(int(d) for d in reversed(array.shape))
    flat = np.ascontiguousarray(array).reshape(-1)
    if dtype in (np.float32, np.float16):  # as CNTK writes them: float16 values widened to float
        view.float_values.value.extend(flat.astype(np.float32).tolist())
    elif dtype == np.float64:
        view.double_values.value.extend(flat.tolist())
    elif dtype == np.int16:
        view.sint32_values.value.extend(flat.astype(np.int32).tolist())
    else:
        view.bytes_value.value = flat.tobytes()


def dictionary_to_message(values, message=None):
    message = P.Dictionary() if message is None else message
    message.version = FORMAT_VERSION
    for key, value in values.items():
        fill_value(message.data[key], value)
    return message
