"""``MinibatchData``: the data of one stream in one minibatch."""
import numpy as np
import scipy.sparse as sp
import torch

from ..core.native_errors import announced
from ..core.value import refuse_masked_sparse
from ..tensor import ArrayMixin


class ReaderBatch(object):
    """Numpy payload of a minibatch stream: the sequences plus how to present them."""
    __slots__ = ('sequences', 'sample_shape', 'dtype', 'is_sparse', 'is_sequence', 'starts', 'slots', 'steps',
                 'num_slots')

    def __init__(self, sequences, sample_shape, dtype, is_sparse, is_sequence=True, starts=None, slots=None,
                 steps=None, num_slots=None):
        self.sequences = sequences          # SequenceData
        self.starts = starts                # per sequence, whether it begins here (None: all do)
        self.slots = slots                  # per sequence, its parallel slot (truncation; None: no slots)
        self.steps = steps                  # the time steps the minibatch spans (truncation; None: the longest)
        self.num_slots = num_slots          # the parallel slots, some perhaps all padding (truncation)
        self.sample_shape = tuple(sample_shape)
        self.dtype = np.dtype(dtype)
        self.is_sparse = is_sparse
        self.is_sequence = is_sequence

    @property
    def shape(self):
        n = len(self.sequences)
        if not self.is_sequence:
            return (n,) + self.sample_shape
        t = self.steps if self.steps is not None else int(self.sequences.lengths.max()) if n else 0
        return (n, t) + self.sample_shape

    def _check_unpackable(self):
        """CNTK 2.7 cannot lay a truncated minibatch out sequence by sequence when a piece continues a sequence
        and some slot holds more than one piece or none."""
        if self.starts is not None and not np.all(self.starts) and len(self.sequences) != self.num_slots:
            raise announced(RuntimeError, 'Cannot create an unpacked Value object from packed data where one or '
                                          'more sequences are truncated')

    def _dense_rows(self):
        rows = self.sequences.rows
        rows = rows.toarray() if sp.issparse(rows) else rows
        return rows.reshape((rows.shape[0],) + self.sample_shape).astype(self.dtype, copy=False)

    def asarray(self):
        self._check_unpackable()
        if self.is_sparse:
            refuse_masked_sparse(self.mask, "minibatch")
        if not self.is_sequence:
            if self.is_sparse and len(self.sample_shape) == 1:
                return sp.csr_matrix(self.sequences.rows, dtype=self.dtype)
            return self._dense_rows()
        lengths = self.sequences.lengths
        out = np.zeros(self.shape, dtype=self.dtype)
        seq = np.repeat(np.arange(len(lengths)), lengths)
        step = np.arange(int(lengths.sum())) - np.repeat(self.sequences.offsets[:-1], lengths)
        out[seq, step] = self._dense_rows()
        return out

    def as_sequences(self):
        self._check_unpackable()
        if not self.is_sequence:
            return list(self.asarray())
        if self.is_sparse:
            return [sp.csr_matrix(s, dtype=self.dtype) for s in self.sequences.sequences()]
        rows = self._dense_rows()
        return [rows[a:b] for a, b in zip(self.sequences.offsets[:-1], self.sequences.offsets[1:])]

    def mask(self):
        """As a Value's mask: none (an AttributeError) without a sequence axis, or when every sequence starts
        here and all have the same length, as CNTK 2.7's readers deliver such minibatches."""
        self._check_unpackable()
        lengths = self.sequences.lengths if self.is_sequence else None
        t = None if lengths is None else self.shape[1]
        if t is None or ((self.starts is None or np.all(self.starts)) and np.all(lengths == t)):
            raise AttributeError("this minibatch has no mask: its sequences all start here and have the same "
                                 "length (CNTK 2.7 keeps no mask then)")
        m = (np.arange(t)[None, :] < lengths[:, None]).astype(np.int8)
        begins = lengths > 0 if self.starts is None else (lengths > 0) & self.starts
        m[begins, 0] = 2
        return m

    def to_value(self):
        from ..core.carried_state import SequenceSlots
        from ..core.value import Value
        if self.is_sequence:
            batch = self.sequences.sequences()
        else:
            batch = self.sequences.rows
        value = Value.from_batch(batch, is_sequence=self.is_sequence, is_sparse=self.is_sparse,
                                 dtype=self.dtype, shape=self.sample_shape)
        value.from_reader = True
        if self.slots is not None and self.is_sequence:
            value.slots = SequenceSlots(self.slots, self.starts)
            t = value.tensor
            if self.steps > t.shape[1]:   # a truncated minibatch spans the truncation length, as in CNTK 2.7
                value.tensor = torch.cat([t, t.new_zeros((t.shape[0], self.steps - t.shape[1]) + t.shape[2:])], 1)
        return value


class MinibatchData(ArrayMixin):
    """Holds one stream's data of a minibatch.

    Readers create it from their numpy payload; user minibatch sources create it from a
    :class:`~cntk.core.Value` (``MinibatchData(value, num_sequences, num_samples, sweep_end)``).
    """

    def __init__(self, value, num_sequences, num_samples, sweep_end):
        self._batch = value if isinstance(value, ReaderBatch) else None
        self._value = None if self._batch is not None else value
        self.number_of_sequences = int(num_sequences)
        self.number_of_samples = int(num_samples)
        self.sweep_end = bool(sweep_end)

    @property
    def num_sequences(self):
        """The number of sequences in this minibatch."""
        return self.number_of_sequences

    @property
    def num_samples(self):
        """The number of samples in this minibatch."""
        return self.number_of_samples

    @property
    def end_of_sweep(self):
        """Whether this minibatch contains the last sequence of a sweep over the data."""
        return self.sweep_end

    @property
    def data(self):
        """The data as a :class:`~cntk.core.Value` (built on first access)."""
        if self._value is None:
            self._value = self._batch.to_value()
        return self._value

    @property
    def is_sparse(self):
        return self._batch.is_sparse if self._batch is not None else self._value.is_sparse

    @property
    def shape(self):
        """Shape of the data: (sequences, longest sequence, *sample shape) for sequence data."""
        return self._batch.shape if self._batch is not None else tuple(self._value.shape)

    @property
    def mask(self):
        """Per sequence and step: 2 marks a sequence start, 1 a valid element, 0 padding."""
        return self._batch.mask() if self._batch is not None else self._value.mask

    def asarray(self):
        """The data as numpy: padded dense array; for sparse data of rank <= 2 a scipy CSR matrix."""
        return self._batch.asarray() if self._batch is not None else self._value.asarray()

    def as_sequences(self, variable=None):
        """List of the sequences without padding: numpy arrays, or CSR matrices for sparse data, which (as in
        CNTK 2.7) need the ``variable`` they are read for."""
        if variable is None and self.is_sparse:
            raise ValueError('cannot convert sparse value to sequences without the corresponding variable')
        if self._batch is not None:
            return self._batch.as_sequences()
        return self._value.as_sequences(variable)

    def __len__(self):
        return self.number_of_sequences

    def as_string(self):
        """CNTK's description: the Value's shape and device, the samples and the sequences."""
        if self._batch is not None:  # without building the Value: it is made on the default device
            from ..core.device import resolve
            where = resolve(None)
            where = "CPU" if where.type == "cpu" else "GPU[%d]" % (where.index or 0)
            value = "Value([%s], %s)" % (" x ".join(str(d) for d in self.shape), where)
        else:
            value = repr(self._value)
        return 'MinibatchData(data=%s, samples=%d, seqs=%d)' % (value, self.num_samples, self.num_sequences)

    __str__ = __repr__ = as_string
