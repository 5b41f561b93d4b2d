"""Data types: CNTK speaks numpy dtypes, the engine speaks torch dtypes."""
import numpy as np
import torch

from .native_errors import announced

_TO_TORCH = {
    np.dtype(np.float32): torch.float32,
    np.dtype(np.float64): torch.float64,
    np.dtype(np.float16): torch.float16,
}
# element types CNTK stores (Parameters, inputs, NDArrayViews, saved tensors) but computes with no op:
# custom_proxy_op records such operands for export
_STORAGE_TO_TORCH = {
    np.dtype(np.int8): torch.int8,
    np.dtype(np.int16): torch.int16,
}
_PRECISION_NAMES = {
    "float": np.float32, "float32": np.float32, "single": np.float32,
    "double": np.float64, "float64": np.float64,
    "float16": np.float16, "half": np.float16,
    "int8": np.int8, "int8_t": np.int8, "int16": np.int16, "int16_t": np.int16,
}
# the numpy scalar types CNTK names (a numpy dtype of one of them is accepted too)
_KNOWN_TYPES = (np.float32, np.float64, np.float16, np.int8, np.int16)


_CNTK_DATA_TYPE_CODES = {1: np.float32, 2: np.float64, 4: np.float16}
# CNTK's DataType enum (cntk.cntk_py.DataType_*)
DataType_Unknown, DataType_Float, DataType_Double, DataType_UChar, DataType_Float16, DataType_Int8, DataType_Int16 = \
    range(7)
# the DataType code of each numpy dtype
_CODE_OF = {np.dtype(np.float32): 1, np.dtype(np.float64): 2, np.dtype(np.uint8): 3, np.dtype(np.float16): 4,
            np.dtype(np.int8): 5, np.dtype(np.int16): 6}


def data_type_code(dtype):
    """CNTK's DataType code of a numpy dtype (0, Unknown, for None or a type CNTK has no code for)."""
    return 0 if dtype is None else _CODE_OF.get(np.dtype(dtype), 0)


def sanitize_dtype(dtype, argument="dtype", storage=False):
    """A numpy dtype from anything CNTK 2.7 accepts as a dtype (its sanitize_dtype_cntk); None, or CNTK's
    DataType_Unknown, gives None (to be inferred). As in CNTK: the Python type ``float`` is float64 and ``int``
    float32, a numpy dtype object of integers float32 (np.dtype('int32'); the scalar type np.int32 is refused;
    here np.dtype('int8') and np.dtype('int16') stay themselves, as the scalar types),
    and anything else a ValueError. With ``storage``, also int8 and int16 (CNTK's DataType_Int8 / Int16), which
    CNTK stores but computes with no op."""
    if dtype is None:
        return None
    if isinstance(dtype, (int, np.integer)):   # a bool too: CNTK compares it with its DataType codes (True is Float)
        code = int(dtype)
        if code == DataType_Unknown:
            return None
        dt = _CNTK_DATA_TYPE_CODES.get(code) or {DataType_Int8: np.int8, DataType_Int16: np.int16}.get(code)
        if dt is None:
            raise ValueError('%s: data type "%s" is not supported' % (argument, dtype))
        dt = np.dtype(dt)
    elif isinstance(dtype, str):
        if dtype not in _PRECISION_NAMES:
            raise ValueError('%s: data type "%s" is not supported; expected one of %s'
                             % (argument, dtype, ", ".join(sorted(_PRECISION_NAMES))))
        dt = np.dtype(_PRECISION_NAMES[dtype])
    elif isinstance(dtype, torch.dtype):
        dt = next((d for d, t in list(_TO_TORCH.items()) + list(_STORAGE_TO_TORCH.items()) if t == dtype), None)
        if dt is None:
            raise ValueError('%s: data type "%s" is not supported' % (argument, dtype))
    elif isinstance(dtype, (type, np.dtype)) and dtype in _KNOWN_TYPES:
        dt = np.dtype(dtype)
    elif dtype is int or (isinstance(dtype, np.dtype) and dtype.kind in "iu"):
        dt = np.dtype(np.float32)
    elif dtype is float:
        dt = np.dtype(np.float64)
    else:
        raise ValueError('%s: data type "%s" is not supported' % (argument, dtype))
    if dt in _STORAGE_TO_TORCH and not storage:
        raise ValueError("%s: CNTK computes with float32, float64 and float16 data (int8 and int16 for "
                         "parameters, constants, inputs and custom_proxy_op), got %s" % (argument, dt))
    return dt


def is_storage_only(dtype):
    """Whether dtype is one CNTK stores but computes with no op (int8, int16)."""
    return dtype is not None and np.dtype(dtype) in _STORAGE_TO_TORCH


def to_torch_dtype(dtype):
    dtype = np.dtype(dtype)
    return _TO_TORCH[dtype] if dtype in _TO_TORCH else _STORAGE_TO_TORCH[dtype]


def operands_dtype(variables):
    """The dtype of an operation on ``variables`` as CNTK 2.7 types it: the first known dtype among the operands
    that are not Constants (a Constant of another precision is converted to it, or refused at evaluation when
    that would narrow it); for Constants alone, the first known one."""
    known = [v for v in variables if v._dtype is not None]
    for v in known:
        if not v.is_constant:
            return np.dtype(v._dtype)
    return np.dtype(known[0]._dtype) if known else None


_DATA_TYPE_NAMES = {np.dtype(np.float64): "Double", np.dtype(np.float32): "Float", np.dtype(np.float16): "Float16"}


def data_type_name(dtype):
    """The name CNTK's messages give an element type (Float, Double, Float16)."""
    return _DATA_TYPE_NAMES.get(np.dtype(dtype), dtype)


def check_operand_dtypes(op_name, operands, accepts=False, constants_convert=True):
    """CNTK 2.7 refuses a primitive op whose operands (``operands`` in its C++ order) differ in precision, Constants
    aside (a Constant is converted to its consumer's precision, or refused at evaluation if that narrows it);
    ``accepts``: an OpDef's mixed_dtypes (True: any; accepts(first, other): the pairs the op takes nevertheless);
    ``constants_convert`` False: Constants count like the other operands (CNTK reads them through another op)."""
    if accepts is True:
        return
    first = None
    for v in operands:
        if v._dtype is None or (v.is_constant and constants_convert):
            continue
        if first is None:
            first = v
        elif np.dtype(v._dtype) != np.dtype(first._dtype) and not (
                accepts and accepts(np.dtype(first._dtype), np.dtype(v._dtype))):
            raise announced(ValueError, "Primitive op '%s' passed operands '%s' with different DataTypes '%s' and "
                            "'%s'." % (op_name, ", ".join(repr(o) for o in operands),
                                       data_type_name(first._dtype),
                                       data_type_name(v._dtype)))


def refuse_object_data(value, ragged=True):
    """CNTK 2.7 converts Python data with numpy's asarray (no dtype) and refuses what numpy can hold only as objects:
    lists and tuples with None entries or ragged ones ("could not convert instance of type <class 'list'> to an
    array"), numpy arrays of objects ('data type "object" is not supported'); a ValueError each. ``ragged`` False:
    ragged lists are left to the caller (an op operand: numpy's own ValueError, as CNTK's sanitize_input gives)."""
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            raise ValueError('data type "object" is not supported')
        return
    if not isinstance(value, (list, tuple)):
        return
    try:
        refused = np.asarray(value).dtype == object
    except ValueError:   # numpy >= 1.24 refuses ragged lists itself
        refused = ragged
    if refused:
        raise ValueError("could not convert instance of type %s to an array" % type(value))


def narrowed_constant_error(constant, dtype):
    """CNTK 2.7's error for a Constant whose precision its consumer would have to narrow."""
    return announced(ValueError, "Constant::Clone: Cannot clone Constant '%r' with DataType '%s' to DataType '%s'."
                     % (constant, data_type_name(constant._dtype),
                        data_type_name(dtype)))


def promote(*dtypes):
    """The widest of the known float dtypes (CNTK computes in the inputs' common precision)."""
    known = [np.dtype(d) for d in dtypes if d is not None]
    if not known:
        return None
    for candidate in (np.float64, np.float32, np.float16):
        if np.dtype(candidate) in known:
            return np.dtype(candidate)
    return known[0]
