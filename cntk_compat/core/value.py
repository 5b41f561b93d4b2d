"""Values: batches of data on the device, as CNTK's Value / NDArrayView present them.

A Value holds a dense, batch-first torch tensor; batches of sequences are padded to the longest
sequence and keep their true lengths beside them.
"""
import numbers
import warnings

import numpy as np
import scipy.sparse as sparse
import torch

from . import device as _device
from .dtypes import data_type_code, sanitize_dtype, to_torch_dtype
from .hooks import hook
from .one_hot import (carry_one_hot_record, csr_one_hot_columns, record_one_hot_columns,
                      recorded_one_hot_columns)
from .sequence_masks import host_mask


def _check_element_type(dtype):
    """CNTK's native NDArrayView and Value take arrays of these element types only (a RuntimeError otherwise)."""
    if np.dtype(dtype) not in (np.int8, np.int16, np.float16, np.float32, np.float64):
        raise RuntimeError("NumPy array of type int8, int16, float16, float32 or float64 expected")


def _dense_sample(sample, dtype):
    if sparse.issparse(sample):
        return np.asarray(sample.todense(), dtype=dtype)
    return np.asarray(sample, dtype=dtype)


def _shape_string(shape):
    return "[%s]" % " x ".join(str(d) for d in shape)


def _device_string(tensor):
    return "GPU[%d]" % (tensor.device.index or 0) if tensor.device.type == "cuda" else "CPU"


class _NativeNDArrayView(object):
    """A dense tensor without dynamic axes (a view on device memory).

    ``NDArrayView(shape, data_type, device=None)`` allocates a zero-filled array, as CNTK's constructor does;
    data_type is a numpy dtype or CNTK's DataType code (cntk.cntk_py.DataType_Float, ...)."""

    def __init__(self, shape, data_type, device=None):
        dtype = sanitize_dtype(data_type, "NDArrayView data_type", storage=True)
        if dtype is None:
            from .native_errors import announced
            raise announced(RuntimeError, "Unknown DataType.")  # CNTK's native constructor refuses DataType_Unknown
        shape = (int(shape),) if np.isscalar(shape) else tuple(int(d) for d in shape)
        self.tensor = torch.zeros(shape, dtype=to_torch_dtype(dtype), device=_device.resolve(device))
        self._is_sparse = False

    @classmethod
    def _wrap(cls, tensor, is_sparse=False):
        """A view on an existing tensor (no copy)."""
        view = cls.__new__(cls)
        view.tensor, view._is_sparse = tensor, is_sparse
        return view

    @staticmethod
    def from_dense(np_array, device=None, read_only=False, borrow=False):
        """The array's data on ``device``: a copy, unless ``borrow`` lets a CPU view share the array's memory."""
        if not isinstance(np_array, np.ndarray):
            raise TypeError("data must be of type numpy.ndarray and not %s" % type(np_array))
        _check_element_type(np_array.dtype)
        if not np_array.flags.c_contiguous:
            warn_not_c_contiguous(np_array)
            borrow = False  # the contiguous copy is a temporary
        tensor = torch.as_tensor(np_array if borrow else np.array(np_array, order="C"))
        return NDArrayView._wrap(_device.copy_to(tensor, _device.resolve(device)))

    @staticmethod
    def from_csr(csr_array, device=None, read_only=False, borrow=False, shape=None):
        if not sparse.isspmatrix_csr(csr_array):
            raise TypeError("only CSR is supported as of now. Please convert your data using 'tocsr()'")
        shape = csr_array.shape if shape is None else tuple(shape)
        if shape[-1] != csr_array.shape[-1]:
            raise ValueError("csr_matrix row size (%d) does not match the least significant axis dimension (%d) of "
                             "the NDArrayView shape" % (csr_array.shape[-1], shape[-1]))
        if int(np.prod(csr_array.shape)) != int(np.prod(shape)):
            raise ValueError("csr_matrix total size (%d) does not match the total size (%d) of the NDArrayView "
                             "shape" % (int(np.prod(csr_array.shape)), int(np.prod(shape))))
        _check_element_type(csr_array.dtype)
        dense = np.asarray(csr_array.todense()).reshape(shape)
        return NDArrayView._wrap(_device.copy_to(torch.as_tensor(dense), _device.resolve(device)), is_sparse=True)

    @staticmethod
    def from_data(data, device=None, read_only=False, borrow=False):
        if isinstance(data, NDArrayView):
            return data
        if isinstance(data, np.number):
            data = np.asarray(data)
        if isinstance(data, np.ndarray):
            return NDArrayView.from_dense(data, device, borrow=borrow)
        if sparse.issparse(data):
            return NDArrayView.from_csr(data, device, borrow=borrow)
        raise TypeError('data type "%s" is not supported. Please provide the data as a Python list of NumPy arrays '
                        'or Scipy CSR matrices.' % type(data))

    @property
    def shape(self):
        return tuple(self.tensor.shape)

    @property
    def dtype(self):
        return self.tensor.detach().cpu().numpy().dtype.type if self.tensor.numel() == 0 else \
            np.dtype(str(self.tensor.dtype).replace("torch.", "")).type

    @property
    def device(self):
        t = self.tensor.device
        return _device.gpu(t.index or 0) if t.type == "cuda" else _device.cpu()

    @property
    def is_sparse(self):
        return self._is_sparse

    @property
    def is_read_only(self):
        return False

    def slice_view(self, start_offset, extent, read_only=True):
        """The block starting at ``start_offset`` (one index per axis) with the right-aligned ``extent``:
        leading axes missing from ``extent`` are sliced to length 1 and dropped."""
        start_offset, extent = tuple(int(s) for s in start_offset), tuple(int(e) for e in extent)
        rank = self.tensor.dim()
        if len(start_offset) != rank:
            raise ValueError("slice_view: start_offset must have one entry per axis of the shape %s, got %s"
                             % (self.shape, start_offset))
        if len(extent) > rank:
            raise ValueError("slice_view: extent %s has more axes than the shape %s" % (extent, self.shape))
        full_extent = (1,) * (rank - len(extent)) + extent
        for axis, (s, e, n) in enumerate(zip(start_offset, full_extent, self.shape)):
            if s < 0 or e < 0 or s + e > n:
                raise ValueError("slice_view: axis %d: offset %d with extent %d is outside the shape %s"
                                 % (axis, s, e, self.shape))
        view = self.tensor[tuple(slice(s, s + e) for s, e in zip(start_offset, full_extent))]
        return NDArrayView._wrap(view.reshape(extent))

    def as_shape(self, new_shape):
        """A view of the same data with another shape of the same total size."""
        new_shape = (int(new_shape),) if np.isscalar(new_shape) else tuple(int(d) for d in new_shape)
        if int(np.prod(new_shape, dtype=np.int64)) != self.tensor.numel():
            raise ValueError("NDArrayView.as_shape: the total size (%d) of this view's shape %s must be the same "
                             "as the size (%d) of the new shape %s" % (self.tensor.numel(), _shape_string(self.shape),
                                                                      int(np.prod(new_shape, dtype=np.int64)),
                                                                      _shape_string(new_shape)))
        return NDArrayView._wrap(self.tensor.reshape(new_shape), self._is_sparse)

    def get_data_type(self):
        """CNTK's DataType code of the elements (1 float32, 2 float64, 4 float16)."""
        return data_type_code(self.dtype)

    def get_storage_format(self):
        """CNTK's StorageFormat code: 0 (StorageFormat_Dense) or 1 (StorageFormat_SparseCSC)."""
        return 1 if self._is_sparse else 0

    def deep_clone(self, device=None, read_only=False):
        """A copy with its own storage (on ``device``, default: this view's)."""
        dev = self.tensor.device if device is None else _device.resolve(device)
        return NDArrayView._wrap(_device.copy_to(self.tensor.detach().clone(), dev), self._is_sparse)

    def alias(self, read_only=False):
        """A view sharing this one's storage."""
        return NDArrayView._wrap(self.tensor, self._is_sparse)

    def copy_from(self, source):
        """Copies ``source``'s data into this view's storage; the shapes must be the same."""
        if tuple(source.shape) != tuple(self.shape):
            raise ValueError("NDArrayView::CopyFrom: The source view shape '%s' is not same as the shape '%s' of "
                             "this NDArrayView." % (_shape_string(source.shape), _shape_string(self.shape)))
        with torch.no_grad():
            self.tensor.copy_(source.tensor.to(self.tensor.device))

    def set_value(self, value):
        """Fills the view with ``value``."""
        with torch.no_grad():
            self.tensor.fill_(float(value))

    def change_device(self, device):
        """Moves the data to ``device``."""
        self.tensor = _device.copy_to(self.tensor, _device.resolve(device))

    def as_string(self):
        return repr(self)

    def to_ndarray(self):
        return self.tensor.detach().cpu().numpy().copy()

    def asarray(self):
        """A copy as numpy; a sparse matrix (rank 2) as a scipy CSR matrix, as in CNTK."""
        return _sparse_as_csr(self.to_ndarray()) if self._is_sparse else self.to_ndarray()

    def __repr__(self):
        return "NDArrayView(%s, %s)" % (_shape_string(self.shape), _device_string(self.tensor))


def refuse_masked_sparse(mask, what):
    """CNTK 2.7 densifies sparse data for asarray() through an input of the padded shape, which a mask (sequences of
    other lengths) does not fit: its ValueError. ``mask``: a function giving the data's mask, an AttributeError
    when it has none."""
    try:
        mask()
    except AttributeError:
        return
    raise ValueError("asarray() of a sparse %s of sequences of different lengths (a mask): CNTK 2.7 cannot "
                     "densify it so; use as_sequences(variable)" % what)


class NDArrayView(_NativeNDArrayView):
    """A dense tensor without dynamic axes (a view on device memory). Its methods live in the base class, which
    cntk.cntk_py exposes as the native NDArrayView (as CNTK's Python class derives from the SWIG one)."""


class _NativeValue(object):
    """A batch of samples or sequences for one Variable."""

    # a class index that Value.one_hot turns into an all-zero sample (CNTK: the largest uint32)
    ONE_HOT_SKIP = one_hot_skip = 2 ** 32 - 1

    def __init__(self, batch=None, seq_starts=None, device=None, _tensor=None, _lengths=None,
                 _is_sparse=False, _slots=None):
        if _tensor is None:
            # as CNTK's: a numpy array (copied) or a CSR matrix becomes an NDArrayView, and only a view will do
            if isinstance(batch, np.ndarray):
                batch = NDArrayView.from_dense(batch, device)
            elif sparse.isspmatrix_csr(batch):
                batch = NDArrayView.from_csr(batch, device)
            if not isinstance(batch, NDArrayView):
                raise NotImplementedError("Wrong number or type of arguments for overloaded function 'new_Value'.")
            _tensor, _is_sparse = batch.tensor, batch.is_sparse
            if device is not None:
                _tensor = _device.copy_to(_tensor, _device.resolve(device), users=True)
        self.tensor = _tensor
        self.lengths = _lengths
        self._is_sparse = _is_sparse
        # SequenceSlots: the parallel slot of each sequence and whether it starts here (truncated BPTT)
        self.slots = _slots
        # delivered by a reader: its samples may come flattened (CNTK's PackedValue), see feeding.to_value
        self.from_reader = False
        if seq_starts:
            self._set_seq_starts(seq_starts)

    def _set_seq_starts(self, seq_starts):
        """Sequence i continues sequence i of the previous forward call where seq_starts[i] is False."""
        from .carried_state import SequenceSlots
        if self.lengths is None:
            raise ValueError("seq_starts were given, but the data has no sequence axis")
        if len(seq_starts) != len(self.lengths):
            raise ValueError("seq_starts: %d sequences, but %d sequence begin markers"
                             % (len(self.lengths), len(seq_starts)))
        self.slots = SequenceSlots(np.arange(len(self.lengths)), [bool(s) for s in seq_starts])

    @staticmethod
    def from_batch(batch, is_sequence, is_sparse=False, dtype=None, shape=None, device=None):
        """batch: ndarray (B, [T,] *shape), or a list of per-sample (per-sequence) arrays / CSR matrices."""
        dtype = sanitize_dtype(dtype) or np.dtype(np.float32)
        dev = _device.resolve(device)
        if isinstance(batch, np.ndarray) or sparse.issparse(batch):
            arr = _dense_sample(batch, dtype)
            if shape is not None and not is_sequence:
                arr = arr.reshape((arr.shape[0],) + tuple(shape))
            lengths = [arr.shape[1]] * arr.shape[0] if is_sequence else None
            return Value(_tensor=_device.copy_to(torch.from_numpy(np.ascontiguousarray(arr)), dev), _lengths=lengths,
                         _is_sparse=is_sparse)
        if not isinstance(batch, (list, tuple)):
            raise TypeError("batch must be a numpy array, a scipy CSR matrix or a list of them, got %s"
                            % type(batch).__name__)
        samples = [_dense_sample(s, dtype) for s in batch]
        if not is_sequence:
            arr = np.stack(samples) if samples else np.zeros((0,) + tuple(shape or ()), dtype)
            if shape is not None:
                arr = arr.reshape((arr.shape[0],) + tuple(shape))
            return Value(_tensor=_device.copy_to(torch.from_numpy(arr), dev), _is_sparse=is_sparse)
        if shape is not None:
            samples = [s.reshape((s.shape[0] if s.ndim else 1,) + tuple(shape)) for s in samples]
        lengths = [s.shape[0] for s in samples]
        t_max = max(lengths) if lengths else 0
        inner = samples[0].shape[1:] if samples else tuple(shape or ())
        out = np.zeros((len(samples), t_max) + inner, dtype=dtype)
        for i, s in enumerate(samples):
            out[i, :s.shape[0]] = s
        tensor = _device.copy_to(torch.from_numpy(out), dev)
        if is_sparse and len(inner) == 1 and batch and all(sparse.issparse(s) for s in batch):
            columns = csr_one_hot_columns(batch, t_max)
            if columns is not None:  # one-hot words: times reads their columns instead of searching them
                record_one_hot_columns(tensor, columns)
        return Value(_tensor=tensor, _lengths=lengths, _is_sparse=is_sparse)

    @staticmethod
    def create(var, data, seq_starts=None, device=None, read_only=False):
        """A Value for ``var`` holding ``data``, laid out as CNTK lays it out: one array, CSR matrix or NDArrayView
        keeps its own shape; a list is a batch of sequences (one per entry), padded to the longest."""
        if not hasattr(var, "_dynamic_axes"):
            raise TypeError('Variable expected, but got "%s"' % type(var).__name__)
        value = hook("create_value")(var, data, seq_starts, _device.resolve(device))
        value._read_only = bool(read_only)
        return value

    @staticmethod
    def one_hot(batch, num_classes, dtype=None, device=None):
        """A sparse batch of sequences of one-hot vectors from lists of class indices.

        num_classes may be a sample shape (..., classes): each sample then takes prod(shape[:-1]) consecutive
        indices of its sequence, one per row."""
        if device is None:
            device = _device.use_default_device()  # first, as CNTK's (its stderr line comes before any error)
        if isinstance(batch, np.ndarray):
            batch = batch.tolist()
        if not isinstance(batch, list):
            raise ValueError("input must be a list")
        # CNTK 2.7 looks at the first sequence's first index only: an empty batch is an IndexError (from
        # batch[0]), an empty first sequence a ValueError, a non-integer first index another ValueError
        first = batch[0]
        if not isinstance(first, (int, float, np.integer)):
            try:
                elem = first[0]
            except Exception:
                raise ValueError("input must be a list of list of integers")
        else:
            elem = first
        if not isinstance(elem, numbers.Integral):
            raise ValueError('supplied data to one_hot() must be of type integer and not "%s" since it is index '
                             'data.' % type(elem))
        dtype = sanitize_dtype(dtype) or np.dtype(np.float32)
        sample_shape = tuple(num_classes) if isinstance(num_classes, (list, tuple)) else (int(num_classes),)
        num_classes, rows = sample_shape[-1], int(np.prod(sample_shape[:-1]))
        if batch and all(isinstance(i, (int, np.integer)) for i in batch):
            # a list of class indices (not of sequences): a batch of one-hot samples without a sequence axis
            value = Value.one_hot([batch], sample_shape, dtype, device)
            columns = recorded_one_hot_columns(value.tensor)
            tensor = value.tensor[0]
            if columns is not None:
                record_one_hot_columns(tensor, columns[0].cpu().numpy())
            return Value(_tensor=tensor, _is_sparse=True)
        seqs, columns = [], []
        for seq in batch:
            idx = np.asarray(seq if isinstance(seq, (list, tuple, np.ndarray)) else [seq])
            if idx.size and not np.issubdtype(idx.dtype, np.integer):
                raise ValueError("one_hot: class indices must be integers, got %s" % idx.dtype)
            hot = idx != Value.ONE_HOT_SKIP  # ONE_HOT_SKIP leaves its sample all zeros
            if idx.size and (idx.min() < 0 or idx[hot].max(initial=0) >= num_classes):
                raise ValueError("one_hot: class index out of range [0, %d)" % num_classes)
            if len(idx) % rows:
                raise ValueError("one_hot: a sequence of %d indices does not split into samples of shape %s"
                                 % (len(idx), sample_shape))
            m = np.zeros((len(idx), num_classes), dtype=dtype)
            m[np.arange(len(idx))[hot], idx[hot].astype(np.int64)] = 1
            seqs.append(m.reshape((len(idx) // rows,) + sample_shape))
            columns.append(np.where(hot, idx, -1).astype(np.int64) if idx.size else np.zeros(0, np.int64))
        value = Value.from_batch(seqs, is_sequence=True, is_sparse=True, dtype=dtype, device=device)
        # the column of each row's 1, padding rows -1: times then picks rows without searching the nonzeros
        steps = value.tensor.shape[1] if value.tensor.dim() > 1 else 0
        padded = np.full((len(columns), steps * rows), -1, np.int64)
        for k, c in enumerate(columns):
            padded[k, :c.size] = c
        return Value(_tensor=record_one_hot_columns(value.tensor, padded), _lengths=value.lengths, _is_sparse=True)

    @property
    def shape(self):
        if self._erased:  # an erased Value has lost its shape too; an expired temporary still has it
            self._check_valid()
        return tuple(self.tensor.shape)

    @property
    def dtype(self):
        return np.dtype(str(self.tensor.dtype).replace("torch.", "")).type

    @property
    def device(self):
        self._check_valid()
        return NDArrayView._wrap(self.tensor).device

    @property
    def is_sparse(self):
        self._check_valid()
        return self._is_sparse

    _read_only = False

    @property
    def is_read_only(self):
        return self._read_only

    # A Value that Function.eval/forward/grad returned (as_numpy=False) is, as in CNTK, a temporary that the next
    # such call of the same Function erases (_expired); one made by the user stays valid.
    _expired = _erased = False

    @property
    def is_valid(self):
        return not self._expired

    def _check_valid(self):
        if self._expired:
            raise RuntimeError("This Value object is invalid and can no longer be accessed. This usually happens when "
                               "a temporary Value object returned by the CNTK library is not cloned and accessed "
                               "later after it has been erased by the library. The Value objects created inside and "
                               "returned by the library from APIs like Forward, Backward etc. are temporary and are "
                               "only guaranteed to be valid until the next Forward/Backward call.")

    @property
    def data(self):
        self._check_valid()
        return NDArrayView._wrap(self.tensor, self._is_sparse)

    @property
    def mask(self):
        """Per (sequence, step), as int8: 2 for a sequence start, 1 for a valid step, 0 for padding. As in CNTK 2.7,
        a Value has a mask only where a sequence is shorter than the longest or continues one of the previous
        minibatch: else (no sequence axis, or whole sequences of one length) asking for it is an AttributeError
        (CNTK's Python wrapper calls asarray() on the native None)."""
        self._check_valid()
        t_max = None if self.lengths is None else self.shape[1]
        continues = self.slots is not None and not self.slots.starts.all()
        if t_max is None or (not continues and all(n == t_max for n in self.lengths)):
            raise AttributeError("this Value has no mask: its sequences all start here and have the same length "
                                 "(CNTK 2.7 keeps no mask then)")
        m = (np.arange(t_max)[None, :] < np.asarray(self.lengths)[:, None]).astype(np.int8)
        starts = slice(None) if self.slots is None else self.slots.starts
        m[starts, 0] *= 2
        return m

    def masked_count(self):
        """How many (sequence, step) cells are padding."""
        self._check_valid()
        return 0 if self.lengths is None else int(sum(self.shape[1] - n for n in self.lengths))

    def erase(self):
        """Frees the Value's storage: as in CNTK, the Value is invalid afterwards (its data can no longer be read)."""
        self._expired = self._erased = True

    def get_data_type(self):
        """CNTK's DataType code of the elements (cntk.cntk_py.DataType_Float, ...)."""
        return data_type_code(self.dtype)

    def get_storage_format(self):
        """CNTK's StorageFormat code: 0 (StorageFormat_Dense) or 1 (StorageFormat_SparseCSC)."""
        self._check_valid()
        return 1 if self._is_sparse else 0

    def _same_layout(self, tensor):
        value = Value(_tensor=tensor, _lengths=None if self.lengths is None else list(self.lengths),
                      _is_sparse=self._is_sparse, _slots=self.slots)
        value.from_reader = self.from_reader
        return value

    def deep_clone(self, read_only=False):
        """A copy with its own storage (the same shape, mask and storage format)."""
        self._check_valid()
        value = self._same_layout(carry_one_hot_record(self.tensor, self.tensor.detach().clone()))
        value._read_only = bool(read_only)
        return value

    def alias(self, read_only=False):
        """A Value sharing this one's storage: writing into either (copy_from) changes both."""
        self._check_valid()
        value = self._same_layout(self.tensor)
        value._read_only = bool(read_only)
        return value

    def copy_from(self, source):
        """Copies ``source``'s data into this Value's storage; the shapes must be the same."""
        self._check_valid()
        if self._read_only:
            raise RuntimeError("Value::CopyFrom: Cannot modify contents of a readonly Value.")
        if tuple(source.shape) != tuple(self.shape):
            raise ValueError("Value::CopyFrom: the source shape '%s' is not the same as the shape '%s' of this Value"
                             % (_shape_string(source.shape), _shape_string(self.shape)))
        with torch.no_grad():
            self.tensor.copy_(source.tensor.to(self.tensor.device))
        self.lengths = None if source.lengths is None else list(source.lengths)

    def mask_tensor(self):
        if self.lengths is None:
            return None
        return host_mask(self.lengths, self.tensor.shape[1], self.tensor.device)

    def __len__(self):
        return self.tensor.shape[0]

    def __repr__(self):
        return "Value(%s, %s)" % (_shape_string(self.shape), _device_string(self.tensor))

    def asarray(self):
        """The data as a fresh numpy array (the Value's storage may be a Parameter's or the fed array); a sparse batch
        of vectors (rank 2) as a scipy CSR matrix, as in CNTK."""
        self._check_valid()
        if self._is_sparse:
            refuse_masked_sparse(lambda: self.mask, "Value")
        arr = fresh_array(self.tensor)
        return _sparse_as_csr(arr) if self._is_sparse else arr

    def as_sequences(self, variable=None):
        """The sequences without their padding: numpy arrays; for sparse data CSR matrices of one row per step
        (a batch without a sequence axis as one such matrix, as CNTK gives it)."""
        self._check_valid()
        arr = fresh_array(self.tensor)
        if self._is_sparse:
            if self.lengths is None:
                # read as a sequence input reads it: the axes beyond the variable's rank are [batch] x [sequence]
                extra = arr.ndim - len(variable.shape) if variable is not None else 1
                if extra == 2:
                    return [sparse.csr_matrix(s.reshape(s.shape[0], -1)) for s in arr]
                return [sparse.csr_matrix(arr.reshape(arr.shape[0] if extra == 1 else 1, -1))]
            return [sparse.csr_matrix(arr[i, :n].reshape(n, -1)) for i, n in enumerate(self.lengths)]
        if self.lengths is None:
            return list(arr)
        return [arr[i, :n] for i, n in enumerate(self.lengths)]

    def to(self, device, dtype=None):
        dtype = to_torch_dtype(dtype) if dtype is not None else None
        t = carry_one_hot_record(self.tensor, _device.copy_to(self.tensor, _device.resolve(device), dtype))
        return Value(_tensor=t, _lengths=self.lengths, _is_sparse=self._is_sparse, _slots=self.slots)


class Value(_NativeValue):
    """A batch of samples or sequences for one Variable. Its methods live in the base class, which
    cntk.cntk_py exposes as the native Value (as CNTK's Python class derives from the SWIG one)."""


def fresh_array(tensor):
    """``tensor`` as a C-ordered numpy array of its own, as CNTK hands out data: on the CPU a numpy view could be
    a Parameter's storage, the fed array or a transposed view; from a device, the copy to the host is already
    fresh (and made C-ordered only if it is not)."""
    t = tensor.detach()
    if t.is_cpu:
        return t.numpy().copy()
    return np.asarray(t.cpu().numpy(), order="C")   # (np.ascontiguousarray would make a 0-d result 1-d)


def _sparse_as_csr(arr):
    """A sparse matrix's values as CNTK's asarray gives them: a CSR matrix for rank 2, dense otherwise."""
    return sparse.csr_matrix(arr) if arr.ndim == 2 else arr


def warn_not_c_contiguous(data):
    """CNTK's RuntimeWarning for a numpy array that is not C contiguous (a transposed view, ...), which it
    copies into row-major order; one per such array."""
    if isinstance(data, np.ndarray) and not data.flags.c_contiguous:
        warnings.warn("data is not C contiguous; rearrange your data/computation to avoid costly data conversions",
                      RuntimeWarning)


def warn_list_for_batch_input(var):
    """CNTK's warning for a batch given as a list to an input without a sequence axis."""
    warnings.warn('you provided the minibatch data as a list, but your corresponding input variable (uid "%s") has '
                  'only one dynamic axis (batch axis). To speed up graph execution, please convert the data '
                  'beforehand into one NumPy array to speed up training.' % var.uid)


def warn_dtype_conversion(var, got):
    warnings.warn('your data is of type "%s", but your input variable (uid "%s") expects "%s". Please convert '
                  'your data beforehand to speed up training.' % (got, var.uid, np.dtype(var.dtype)))
