"""Turning what users feed (numpy, scipy CSR, lists, Value, MinibatchData) into device tensors."""
import numpy as np
import scipy.sparse as sparse
import torch

from .device import copy_to
from .dtypes import data_type_name, refuse_object_data, to_torch_dtype
from .hooks import provide
from .native_errors import announce, announced
from .one_hot import carry_one_hot_record, csr_one_hot_columns, record_one_hot_columns
from .value import NDArrayView, Value, warn_dtype_conversion, warn_list_for_batch_input, warn_not_c_contiguous
from .variables import FreeDimension, InferredDimension, shape_text


def _describe(var):
    return "argument '%s' (%s)" % (var.name, var.uid) if var.name else "argument %s" % var.uid


def _shape_matches(got, expected):
    return len(got) == len(expected) and all(e < 0 or g == e for g, e in zip(got, expected))


def _check_dtype(var, arr):
    if arr.dtype == var._dtype:
        return
    if arr.dtype == object:
        raise ValueError("%s: dtype object is not supported; pass a batch of sequences as a Python list of "
                         "numpy arrays" % _describe(var))
    # CNTK 2.7 converts bool, the float types and numpy's default integer (int64; its test
    # np.issubdtype(dtype, int) is false for the other integer types under the numpy it ran with)
    if arr.dtype not in (np.bool_, np.float16, np.float32, np.float64, np.int_):
        raise ValueError("%s: only integer, bool, float32, float64 and float16 are supported, you gave %s"
                         % (_describe(var), arr.dtype))
    warn_dtype_conversion(var, arr.dtype)


def _sample_shape_error(var, got):
    """CNTK 2.7's error for data (one array, tensor or Value, of shape ``got``) whose trailing dimensions are not
    the input's shape, or that has fewer axes than the input."""
    if len(got) < len(var.shape):
        return announced(ValueError, "Value's rank (%d) should be >= the Variable's rank (%d); Variable = '%r', Value shape = "
                          "'%s'." % (len(got), len(var.shape), var, shape_text(got)))
    return announced(ValueError, "The trailing dimensions of the Value shape '%s' do not match the Variable '%r' shape '%s'."
                      % (shape_text(got), var, shape_text(var.shape)))


def _sequence_shape_error(var, i, got):
    """CNTK 2.7's error for the i-th entry of a list (a sample, or a sequence) whose shape does not fit."""
    return announced(ValueError, "Value::Create: The shape '%s' of sequence #%d is not compatible with the sample shape '%s'."
                      % (shape_text(got), i, shape_text(var.shape)))


def _no_sequences(var):
    """CNTK 2.7's error for an empty list given as an argument's data (or to Value.create)."""
    message = "Value::Create:: The number of sequences must be > 0"
    announce(message)
    return ValueError("%s\n\n(cntk-compat: %s got an empty list)" % (message, _describe(var)))


def _no_samples(var, steps):
    """CNTK 2.7's error for an array of no samples (no sequences, when ``steps`` is the length of the sequences it
    describes) given as an argument's data."""
    if steps is None:
        # CNTK announces the narrowing's own message, then names the input node in the one it raises
        announce("NarrowTo: Invalid bounds parameter, dimensions must be at least one.")
        message = "Node '%s' (InputValue operation): NarrowTo: Invalid bounds parameter, dimensions must be at least " \
                  "one." % var.uid
    else:
        message = ("The number (%d) of time steps in the packed MBLayout does not match the longest sequence's length "
                   "(0) in the Value object" % steps)
        announce(message)
    return RuntimeError("%s\n\n(cntk-compat: %s got data for no %s)"
                        % (message, _describe(var), "samples" if steps is None else "sequences"))


def _fit_error(var, got, dynamic):
    """The error for data of shape ``got`` that the input does not take, ``dynamic`` of its leading axes being the
    input's dynamic axes: CNTK's trailing-dimensions error, or, when those fit, its error for the innermost of the
    other leading axes whose size is not 1."""
    got = tuple(got)
    rank = len(var.shape)
    if len(got) > rank + 2:
        return announced(ValueError, "Value rank (%d) should be larger than the Variable rank (%d) at most by number of "
                         "dynamic axes (%d); Variable = '%r', Value shape = '%s'."
                         % (len(got), rank, var._n_dynamic, var, shape_text(got)))
    if len(got) >= rank and _shape_matches(got[len(got) - rank:], tuple(var.shape)):
        for axis in reversed(range(dynamic, len(got) - rank)):
            if got[axis] != 1:
                return _not_a_dynamic_axis(var, got, axis)
    return _sample_shape_error(var, got)


def _as_dense_array(var, sample):
    if sparse.issparse(sample):
        return np.asarray(sample.todense())
    if isinstance(sample, torch.Tensor):
        return sample.detach().cpu().numpy()
    if isinstance(sample, NDArrayView):  # e.g. one sequence made by NDArrayView.from_csr
        return sample.tensor.detach().cpu().numpy()
    arr = np.asarray(sample)
    return arr


def _unflatten_reader_samples(var, value, is_seq):
    """A reader's stream may deliver each sample flattened (e.g. 784 values for an input of shape (1, 28, 28)).

    CNTK (Utils::VerifyVariableValueCompatibility, for reader-packed values only) takes such a sample
    as the input's shape when its size is the input's total size, or, where the input has free
    dimensions, when those can be inferred from it. Anything else is left to the shape check.
    """
    lead = 2 if (is_seq and value.lengths is not None) else 1
    sample = tuple(value.shape[lead:])
    shape = tuple(var.shape)
    if len(sample) != 1 or _shape_matches(sample, shape) or any(d == InferredDimension for d in shape):
        return value
    known = int(np.prod([d for d in shape if d != FreeDimension]))
    free = sum(1 for d in shape if d == FreeDimension)
    if free == 0 and known != sample[0]:
        return value
    if free > 1 or (free == 1 and (known == 0 or sample[0] % known)):
        return value
    target = tuple(sample[0] // known if d == FreeDimension else d for d in shape)
    return Value(_tensor=value.tensor.reshape(tuple(value.shape[:lead]) + target), _lengths=value.lengths,
                 _is_sparse=value.is_sparse, _slots=value.slots)


def _static_value(var, data, dtype, shape, device):
    """The value of an input without dynamic axes: one tensor of exactly the input's shape."""
    if isinstance(data, torch.Tensor):
        data = data.detach().cpu().numpy()
    arr = _as_dense_array(var, data)
    if type(data) is np.ndarray:    # CNTK copies the array into its NDArrayView before checking its shape
        warn_not_c_contiguous(arr)
    _check_dtype(var, arr)
    given = arr.shape
    extra = arr.ndim - len(shape)
    if 0 < extra <= 2 and all(d == 1 for d in arr.shape[:extra]):
        arr = arr.reshape(arr.shape[extra:])  # CNTK takes leading axes of size 1 as a batch (and sequence) of one
    if not _shape_matches(arr.shape, shape):
        raise _fit_error(var, given, 0)
    # (order="C", not np.ascontiguousarray, which makes a 0-d array 1-d: a scalar input keeps its rank)
    return Value(_tensor=copy_to(torch.as_tensor(np.asarray(arr, dtype=dtype, order="C")), device))


def _unmasked_value(var, data, shape, is_seq):
    """A Value without sequence lengths (made from one array, CSR matrix or NDArrayView) as CNTK reads it: the
    axes it has beyond the input's rank are dynamic axes, the innermost being the sequence axis. For a sequence
    input: none, one sequence of one step; one, one sequence; two, [batch] x [sequence]. For an input with only
    the batch axis: none, one sample; two, [batch] x [sequence of length 1]. For an input without dynamic axes:
    leading axes of size 1 only."""
    t = data.tensor
    extra = t.dim() - len(shape)
    if extra < 0 or (is_seq and not var._has_batch):
        return data  # left to the shape check
    if extra > 2:
        raise ValueError("%s: a Value of shape %s has rank %d, but it can have at most 2 axes (batch and sequence) "
                         "beyond the input's rank %d (shape %s)"
                         % (_describe(var), tuple(t.shape), t.dim(), len(shape), tuple(shape)))
    if is_seq and var._has_batch:
        t = t.reshape((1,) * (2 - extra) + tuple(t.shape))
        return Value(_tensor=t, _lengths=[t.shape[1]] * t.shape[0], _is_sparse=data.is_sparse, _slots=data.slots)
    lead = 0 if var._n_dynamic == 0 else (1 if var._has_batch else 0)
    if extra > lead:
        for axis in range(lead, extra):
            if t.shape[axis] != 1:
                raise _not_a_dynamic_axis(var, tuple(t.shape), axis)
        t = t.reshape(tuple(t.shape[:lead]) + tuple(t.shape[extra:]))
    elif extra < lead:
        t = t[None]  # one sample
    return Value(_tensor=t, _is_sparse=data.is_sparse)


def _not_a_dynamic_axis(var, value_shape, axis):
    """CNTK 2.7's error for a Value with more than one entry along an axis the input has no dynamic axis for (a
    Value of sequences fed to a non-sequence input, say). ``axis`` counts numpy's way; the message numbers the
    axes as CNTK stores them, innermost first."""
    return announced(ValueError, "The dimension size (%d) of the axis (%d) of the Value ('%s') must be 1, because this axis "
                      "is not specified as a dynamic axis of the Variable ('%r')."
                      % (value_shape[axis], len(value_shape) - 1 - axis, shape_text(value_shape), var))


def _from_value(var, data, device, dtype, shape, is_seq):
    from_reader = data.from_reader
    given = tuple(data.shape)
    if var._dtype is not None and np.dtype(data.dtype) != var._dtype:
        # CNTK 2.7 converts numpy data to the input's element type, never a Value (nor an NDArrayView, nor a
        # reader's data: float32 for a float64 input is refused too)
        raise announced(RuntimeError, "The Variable '%r' DataType %s does not match the corresponding Value's "
                        "DataType %s" % (var, data_type_name(var._dtype), data_type_name(data.dtype)))
    if not from_reader and not (len(given) >= len(shape) and _shape_matches(given[len(given) - len(shape):], shape)):
        raise _sample_shape_error(var, given)
    if not is_seq and data.lengths is not None:
        if any(n != 1 for n in data.lengths):
            raise _not_a_dynamic_axis(var, tuple(data.shape), 1)
        # readers deliver every stream as sequences; a non-sequence input takes their single steps
        data = Value(_tensor=data.tensor[:, 0], _is_sparse=data.is_sparse)
    if from_reader:
        data = _unflatten_reader_samples(var, data, is_seq)
    if data.lengths is None:
        data = _unmasked_value(var, data, shape, is_seq)
    lead = 2 if (is_seq and data.lengths is not None) else (0 if not var._dynamic_axes else 1)
    if not _shape_matches(data.shape[lead:], shape):
        raise _sample_shape_error(var, given)
    return data.to(device, dtype)


def _from_tensor(var, data, device, dtype, shape, is_seq):
    given = tuple(data.shape)
    t = carry_one_hot_record(data, copy_to(data, device, to_torch_dtype(dtype), users=True))
    if _shape_matches(tuple(t.shape), shape):
        t = t.unsqueeze(0)
    lengths = [t.shape[1]] * t.shape[0] if is_seq else None
    got = tuple(t.shape[2:] if is_seq else t.shape[1:])
    if not _shape_matches(got, shape):
        raise _fit_error(var, given, 1 if var._has_batch else 0)
    return Value(_tensor=t, _lengths=lengths, _is_sparse=var.is_sparse)


def _from_sparse(var, data, device, dtype, shape, is_seq):
    """One CSR matrix is a Value of its own two axes, as in CNTK: for an input of one axis its rows are the samples
    (or the steps of one sequence); for an input of two axes it is one sample (a sequence of one step); the input's
    shape must be its trailing axes."""
    csr = sparse.csr_matrix(data)
    if len(shape) != 1 or csr.shape[1] != shape[0]:
        if not _shape_matches(csr.shape, shape):
            raise _sample_shape_error(var, csr.shape)
        return _from_list(var, [csr], device, dtype, shape, is_seq)
    if is_seq:
        return _from_list(var, [csr], device, dtype, shape, is_seq)
    value = Value.from_batch(csr, is_sequence=False, is_sparse=True, dtype=dtype, shape=shape, device=device)
    columns = csr_one_hot_columns([csr], csr.shape[0]) if len(shape) == 1 else None
    if columns is not None:  # a batch of one-hot rows
        record_one_hot_columns(value.tensor, columns)
    return value


def _from_array(var, data, device, dtype, shape, is_seq):
    """An array (or scalar) of [batch] x [sequence] x shape, or of one sample / one sequence. The tensor shares
    the array's memory when dtype and layout already fit (no copy on the CPU)."""
    arr = data if type(data) is np.ndarray else np.asarray(data)
    warn_not_c_contiguous(arr)
    _check_dtype(var, arr)
    given = arr.shape
    if _shape_matches(arr.shape, shape):
        arr = arr[None]
    if is_seq and _shape_matches(arr.shape[1:], shape):
        arr = arr[None]
    if not is_seq and arr.ndim == len(shape) + 2 and arr.shape[1] == 1 and _shape_matches(arr.shape[2:], shape):
        arr = arr[:, 0]  # [batch] x [sequence of length 1] x shape, for an input without a sequence axis
    got = arr.shape[2:] if is_seq else arr.shape[1:]
    if not _shape_matches(got, shape):
        if var.is_sparse and not is_seq and arr.ndim == 2 and arr.shape[1] == int(np.prod(shape)):
            arr = arr.reshape((arr.shape[0],) + shape)
        else:
            raise _fit_error(var, given, (1 if var._has_batch else 0) + (1 if is_seq else 0))
    if arr.shape[0] == 0:
        raise _no_samples(var, arr.shape[1] if is_seq else None)
    if arr.dtype != dtype or not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr, dtype=dtype)
    return Value(_tensor=copy_to(torch.from_numpy(arr), device),
                 _lengths=[arr.shape[1]] * arr.shape[0] if is_seq else None, _is_sparse=var.is_sparse)


def _from_list(var, data, device, dtype, shape, is_seq):
    """A list of samples (or of sequences): arrays, CSR matrices or nested lists."""
    if not data:
        raise _no_sequences(var)
    samples = []
    several_steps = []      # shapes of entries that are sequences of several samples (for a non-sequence input)
    if not is_seq and len(data) > 1:  # CNTK warns for a list of more than one sample only
        warn_list_for_batch_input(var)
    for i, s in enumerate(data):
        warn_not_c_contiguous(s)
        if isinstance(s, (list, tuple)):
            refuse_object_data(s)
        arr = _as_dense_array(var, s)
        if isinstance(s, (list, tuple)):
            arr = _nested_list_array(var, s, dtype)  # Python numbers take the input's type, without a warning
        _check_dtype(var, arr)
        given = arr.shape
        if is_seq:
            if sparse.issparse(s) and len(shape) > 1 and not _shape_matches(arr.shape, shape):
                # a CSR matrix is one step of a sample of two axes; its rows are steps only for a sample of one axis
                raise _sequence_shape_error(var, i, given)
            if _shape_matches(arr.shape, shape) and not _shape_matches(arr.shape[1:], shape):
                arr = arr[None]
            elif arr.ndim == 1 and shape in ((1,), ()):  # a sequence of scalars
                arr = arr.reshape((arr.shape[0],) + shape)
            if not _shape_matches(arr.shape[1:], shape):
                raise _sequence_shape_error(var, i, given)
        else:
            # a sample may come as a sequence of length 1 (CNTK accepts it for non-sequence inputs)
            if (sparse.issparse(s) and arr.shape[0] == 1 and len(shape) == 1) or (shape == () and arr.shape == (1,)) or \
                    (arr.ndim == len(shape) + 1 and arr.shape[0] == 1 and _shape_matches(arr.shape[1:], shape)):
                arr = arr.reshape(arr.shape[1:] if arr.ndim == len(shape) + 1 else shape)
            if not _shape_matches(arr.shape, shape):
                if arr.ndim == len(shape) + 1 and arr.shape[0] > 1 and _shape_matches(arr.shape[1:], shape):
                    several_steps.append(arr.shape)
                    continue
                raise _sequence_shape_error(var, i, given)
        samples.append(arr.astype(dtype, copy=False))
    if several_steps:
        # CNTK makes a Value of the entries as sequences, padded to the longest, then refuses its sequence axis
        steps = max(s[0] for s in several_steps)
        raise _not_a_dynamic_axis(var, (len(data), steps) + tuple(several_steps[0][1:]), 1)
    # as in CNTK, a Value made of CSR matrices is sparse even for a dense input
    value = Value.from_batch(samples, is_sequence=is_seq, dtype=dtype, device=device,
                             is_sparse=var.is_sparse or any(sparse.issparse(s) or
                                                            (isinstance(s, NDArrayView) and s.is_sparse)
                                                            for s in data))
    if len(shape) == 1 and data and sparse.issparse(data[0]):
        # CSR sequences (or samples) of one-hot rows: times reads their columns instead of searching them
        columns = csr_one_hot_columns(data, value.tensor.shape[1] if is_seq else 1)
        if columns is not None:
            record_one_hot_columns(value.tensor, columns)
    return value


def _nested_list_array(var, data, dtype):
    """Nested Python lists as one array of the input's dtype (CNTK converts them without a warning)."""
    try:
        return np.asarray(data, dtype=dtype)
    except (ValueError, TypeError):
        leaf = data
        while isinstance(leaf, (list, tuple)) and len(leaf) > 0:
            leaf = leaf[0]
        if sparse.issparse(leaf):
            raise ValueError("%s: sparse data must come as one CSR matrix per sequence (its rows the steps), not as "
                             "a list of %d CSR matrices" % (_describe(var), len(data))) from None
        raise ValueError("%s: these nested lists do not form one array (sequences of different lengths go in a "
                         "list of arrays, one per sequence, for an input with a sequence axis)"
                         % _describe(var)) from None


def _whole_value(var, data, dtype, device):
    """A Value of exactly ``data``'s shape (no sequence lengths), as CNTK's Value.create makes one from a single
    array, CSR matrix or NDArrayView: the axes beyond the input's rank are read as dynamic axes when it is fed."""
    if isinstance(data, NDArrayView):
        return Value(_tensor=data.tensor.to(device), _is_sparse=data.is_sparse)
    if isinstance(data, (list, tuple)):
        arr = _nested_list_array(var, data, dtype)
    else:
        arr = _as_dense_array(var, data)
        _check_dtype(var, arr)
    tensor = torch.from_numpy(np.asarray(arr, dtype=dtype, order="C")).to(device)
    return Value(_tensor=tensor, _is_sparse=sparse.issparse(data))


def create_value(var, data, seq_starts, device):
    """CNTK's Value.create: one array, CSR matrix or NDArrayView becomes a Value of its own shape (read when fed,
    see _unmasked_value); a list holds one sequence per entry (a sample, or [steps] x sample), padded to the
    longest, whatever the input's dynamic axes; for an input without dynamic axes any data is one array."""
    if isinstance(data, Value):
        if seq_starts:
            raise ValueError("%s: sequence start flags cannot be given with a Value; give them when creating it"
                             % _describe(var))
        return data
    if seq_starts and var._sequence_axis is None:
        raise ValueError("%s: seq_starts were given, but the input has no sequence axis" % _describe(var))
    if not isinstance(data, (np.ndarray, list, NDArrayView)) and not sparse.issparse(data):
        inner = getattr(data, "data", None)  # reader data (MinibatchData) carries its Value
        if isinstance(inner, Value):
            return inner
    dtype = var._dtype or _FLOAT32
    if not var._dynamic_axes:
        return _whole_value(var, data, dtype, device)
    if isinstance(data, np.ndarray):
        if data.dtype == object:
            raise ValueError("%s: dtype object is not supported; pass a batch of sequences as a Python list of "
                             "numpy arrays" % _describe(var))
        if seq_starts:
            data = list(np.atleast_1d(data))  # one sequence per row
        else:
            return _whole_value(var, data, dtype, device)
    elif sparse.issparse(data) or isinstance(data, NDArrayView):
        if seq_starts:
            raise ValueError("%s: seq_starts cannot be used with data given as a single %s; pass a list of them, one "
                             "per sequence" % (_describe(var), type(data).__name__))
        return _whole_value(var, data, dtype, device)
    if not isinstance(data, list):
        raise ValueError("%s: batch must be a numpy array, a SciPy CSR matrix or a list of them (one per "
                         "sequence), got %s" % (_describe(var), type(data).__name__))
    if var._sequence_axis is None and len(data) > 1:
        warn_list_for_batch_input(var)
    value = _from_list(var, data, device, dtype, tuple(var.shape), True)
    if seq_starts:
        value._set_seq_starts(seq_starts)
    return value


# (kind of data, converter) in the order they are tried; the converter an exact type resolves to is remembered
_CONVERTERS = [
    (Value, _from_value),
    (torch.Tensor, _from_tensor),
    (np.ndarray, _from_array),
    (sparse.spmatrix, _from_sparse),
    ((list, tuple), _from_list),
]
_BY_TYPE = {}


def _converter(data):
    kind = type(data)
    convert = _BY_TYPE.get(kind)
    if convert is None:
        convert = next((c for k, c in _CONVERTERS if isinstance(data, k)), None)
        if convert is None and sparse.issparse(data):  # scipy's sparse arrays (not spmatrix subclasses)
            convert = _from_sparse
        if convert is not None:
            _BY_TYPE[kind] = convert
    return convert


def to_value(var, data, device):
    """A Value for ``var`` on ``device`` holding ``data``, with the shape checked against var's type."""
    if not isinstance(data, (np.ndarray, Value)):
        inner = getattr(data, "data", None)
        if isinstance(inner, Value):  # reader data (MinibatchData) carries its Value
            data = inner
        elif isinstance(data, NDArrayView):  # read as a Value without sequence lengths
            data = Value(_tensor=data.tensor, _is_sparse=data.is_sparse)
    dtype = var._dtype or _FLOAT32
    shape = tuple(var.shape)
    if var._dynamic_axes == () and not isinstance(data, Value):
        return _static_value(var, data, dtype, shape, device)
    convert = _converter(data)
    if convert is None:
        # CNTK 2.7's Value.create refuses it so (a Function, e.g. CNTK 2.0 beta's C.one_hot of an index array,
        # a string, a dict, None, a number: a 0-d array is one sample)
        raise ValueError("batch must be a list of NumPy arrays or SciPy CSR matrices")
    return convert(var, data, device, dtype, shape, var._sequence_axis is not None)


_FLOAT32 = np.dtype(np.float32)


provide(to_value=to_value, create_value=create_value)
