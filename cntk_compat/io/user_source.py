"""Minibatch sources and deserializers written in Python by the user, and in-memory data sources."""
import numpy as np
import scipy.sparse as sp

from ..core.native_errors import director_failure
from ..core.value import Value, warn_not_c_contiguous
from ._deserializer import Chunk, Deserializer, ReaderError
from ._record import Record
from ._sequences import SequenceData
from .minibatch_data import MinibatchData, ReaderBatch
from .source_config import INFINITELY_REPEAT
from .streams import StreamInformation


class UserMinibatchSource(object):
    """Base class of minibatch sources implemented in Python.

    Subclasses implement :meth:`stream_infos` and :meth:`next_minibatch`, and call
    ``super().__init__()`` once :meth:`stream_infos` can answer.
    """

    def __init__(self):
        self.streams = Record(**{si.m_name: si for si in self.stream_infos()})

    def stream_infos(self):
        """To be implemented: the list of :class:`StreamInformation` of this source."""
        raise NotImplementedError

    def stream_info(self, name):
        """The :class:`StreamInformation` of the stream ``name``."""
        matches = [si for si in self.stream_infos() if si.m_name == name]
        if not matches:
            raise ReaderError("No stream found matching given name '%s'." % name)
        if len(matches) > 1:
            raise ReaderError("Multiple streams (%d) found matching given name '%s'." % (len(matches), name))
        return matches[0]

    def __getitem__(self, name):
        return self.stream_info(name)

    def next_minibatch(self, num_samples, number_of_workers, worker_rank, device=None):
        """To be implemented: a dict :class:`StreamInformation` -> :class:`MinibatchData`."""
        raise NotImplementedError

    def get_checkpoint_state(self):
        """The state to store in a checkpoint (a dict with string keys of numbers, strings, numpy values, and
        lists and dicts of them); override to support it."""
        return {}

    def restore_from_checkpoint(self, state):
        """Restore a state from :meth:`get_checkpoint_state`; override to support it."""
        if state:
            raise NotImplementedError('in order to use checkpointing on UserMinibatchSource, you need to '
                                      'implement restore_from_checkpoint(checkpoint)')

    def is_infinite(self):
        """Whether the source has no limit on samples or sweeps."""
        return False


def _with_sequence_axis(data, stream):
    """A user's Value of shape (batch, steps, *sample shape) holds sequences (CNTK reads the axes beyond the
    stream's sample shape as sequence and batch axes): mark them so, with every sequence ``steps`` long."""
    value = data._value
    if not isinstance(value, Value) or value.lengths is not None:
        return data
    shape = tuple(value.shape)
    if len(shape) != len(stream.sample_shape) + 2 or shape[2:] != tuple(stream.sample_shape):
        return data
    as_sequences = Value(_tensor=value.tensor, _lengths=[shape[1]] * shape[0], _is_sparse=value.is_sparse)
    return MinibatchData(as_sequences, data.num_sequences, data.num_samples, data.end_of_sweep)


def call_from_native(method, *args):
    """``method(*args)``, a user source's (or another Python override's) method called as CNTK 2.7's native
    code calls it, through a SWIG director: an exception it raises is printed (its traceback, on stderr) and
    turned into ``RuntimeError('SWIG director method error.')``."""
    try:
        return method(*args)
    except Exception:
        raise director_failure() from None


def read_minibatch(source, minibatch_size_in_samples, input_map=None, device=None, num_data_partitions=1,
                   partition_index=0, from_native=False):
    """Next minibatch from any source (MinibatchSource or UserMinibatchSource), keyed as ``input_map``.
    ``from_native``: read as CNTK's native loops (the training session) read a user source, see
    :func:`call_from_native`."""
    if isinstance(source, UserMinibatchSource):
        args = (minibatch_size_in_samples, num_data_partitions, partition_index, device)
        mb = call_from_native(source.next_minibatch, *args) if from_native else source.next_minibatch(*args)
        mb = {si: _with_sequence_axis(data, si) for si, data in mb.items()} if mb else mb
        if input_map and mb:
            return {key: mb[source.stream_info(s) if isinstance(s, str) else s] for key, s in input_map.items()}
        return mb
    return source.next_minibatch(minibatch_size_in_samples, input_map=input_map, device=device,
                                 num_data_partitions=num_data_partitions, partition_index=partition_index)


class MinibatchSourceFromData(UserMinibatchSource):
    """A minibatch source over in-memory data, read in order without randomization.

    Args:
        data_streams: name -> data, where data is a numpy array (samples first), a scipy CSR matrix, a
          list of per-sequence arrays/CSR matrices, or a pair (data, type) such as
          ``(X, Sequence[Tensor[3]])`` to mark sequences.
        max_samples (int): stop after this many samples; sequences count with their longest stream.
    """

    def __init__(self, data_streams, max_samples=INFINITELY_REPEAT):
        if not data_streams:
            raise ValueError('at least one stream must be specified, in the form name=data or name=(data, type)')
        self._data, self._is_sequence, self._infos = {}, {}, []
        self._max_samples = max_samples
        self._num_samples = -1
        for i, (name, arg) in enumerate(data_streams.items()):
            value, vtype = arg if isinstance(arg, tuple) else (arg, None)
            is_sequence = vtype is not None and len(vtype.get('dynamic_axes', ())) > 1
            if hasattr(value, 'asarray') and not isinstance(value, (np.ndarray, list)) and not sp.issparse(value):
                value = value.asarray()
            first = value[0] if isinstance(value, list) else value
            if not isinstance(first, np.ndarray) and not sp.issparse(first):
                raise TypeError('data must be a numpy.array or scipy.sparse.csr_matrix, or a list of those')
            if isinstance(value, list) and not is_sequence:
                # CNTK 2.7 reads a list only as sequences: without a sequence type it fails on the list's shape
                raise AttributeError("MinibatchSourceFromData: stream '%s' is a list, which needs a sequence type, "
                                     "as (data, Sequence[Tensor[...]]); without one, give one array" % name)
            is_sparse = sp.issparse(first) if vtype is None else bool(vtype.get('is_sparse', sp.issparse(first)))
            shape = first.shape[1:]
            if vtype is not None and vtype.get('shape') not in (None, tuple(shape)):
                raise ValueError("specified type's shape %s does not match the data's shape %s"
                                 % (vtype.get('shape'), tuple(shape)))
            n = len(value) if isinstance(value, list) else value.shape[0]
            if self._num_samples == -1:
                if n == 0:
                    raise ValueError('data is empty')
                self._num_samples = n
            elif n != self._num_samples:
                raise TypeError('all data items must have the same first dimension')
            self._data[name] = value
            self._is_sequence[name] = is_sequence
            self._infos.append(StreamInformation(name, i, 'sparse' if is_sparse else 'dense', first.dtype, shape))
        self._cursor = 0
        self._total_num_samples = 0
        super(MinibatchSourceFromData, self).__init__()

    def stream_infos(self):
        return list(self._infos)

    def _length(self, name, i):
        return self._data[name][i].shape[0] if self._is_sequence[name] else 1

    def next_minibatch(self, num_samples, number_of_workers=1, worker_rank=0, device=None):
        if self._total_num_samples >= self._max_samples:
            return {}
        begin = end = self._cursor
        taken = {name: 0 for name in self._data}
        while end < self._num_samples:
            grown = {name: taken[name] + self._length(name, end) for name in self._data}
            longest = max(grown.values())
            if longest > num_samples or self._total_num_samples + longest > self._max_samples:
                break
            taken = grown
            end += 1
        if end == begin:
            # CNTK 2.7 delivers no sequence then, and its Value of no sequences is a ValueError
            raise ValueError("MinibatchSourceFromData: sequence %d (%d samples) exceeds the minibatch size (%d) or what "
                             "is left of max_samples (%s); a minibatch must hold at least one sequence"
                             % (begin, max(self._length(name, begin) for name in self._data), num_samples,
                                self._max_samples - self._total_num_samples))
        self._total_num_samples += max(taken.values())
        at_end = end == self._num_samples
        result = {}
        for si in self._infos:
            value = self._data[si.m_name]
            picked = value[begin + worker_rank:end + worker_rank:number_of_workers]
            if number_of_workers == 1 and isinstance(picked, np.ndarray):
                warn_not_c_contiguous(picked)   # CNTK 2.7 makes a Value of the slice (several workers: of a copy)
            if self._is_sequence[si.m_name]:
                seqs = SequenceData.from_sequences(list(picked))
            else:
                seqs = SequenceData.from_lengths(picked, np.ones(picked.shape[0], np.int64))
            batch = ReaderBatch(seqs, si.sample_shape, si.dtype, si.is_sparse,
                                is_sequence=self._is_sequence[si.m_name])
            result[si] = MinibatchData(batch, len(seqs), seqs.rows.shape[0], 
                                       at_end or self._total_num_samples >= self._max_samples)
        self._cursor = 0 if at_end else end
        return result

    def get_checkpoint_state(self):
        return dict(cursor=self._cursor, total_num_samples=self._total_num_samples)

    def restore_from_checkpoint(self, checkpoint):
        self._cursor = checkpoint['cursor']
        self._total_num_samples = checkpoint['total_num_samples']


class UserDeserializer(object):
    """Base class of deserializers written in Python, to be passed to :class:`MinibatchSource`.

    Implement :meth:`stream_infos`, :meth:`num_chunks` and :meth:`get_chunk`; the MinibatchSource
    then randomizes chunks, distributes them over workers, prefetches and checkpoints.
    """

    def stream_infos(self):
        """The list of :class:`StreamInformation` of all streams."""
        raise NotImplementedError('should return a list of StreamInformation for all streams')

    def num_chunks(self):
        """The total number of chunks."""
        raise NotImplementedError('should return the total number of chunks.')

    def get_chunk(self, chunk_id):
        """Data of chunk ``chunk_id``: stream name -> numpy array/CSR matrix with one sample per row
        (sample mode), or a list of per-sequence arrays/CSR matrices (sequence mode)."""
        raise NotImplementedError('should return data for the chunk.')


class UserDeserializerAdapter(Deserializer):
    """Presents a :class:`UserDeserializer` to the MinibatchSource."""
    kind = 'UserDeserializer'

    def __init__(self, user):
        super(UserDeserializerAdapter, self).__init__()
        self._user = user
        self._infos = user.stream_infos()
        if not self._infos:
            raise ValueError('Deserializer must provide at least one stream')
        if sum(si.m_defines_mb_size for si in self._infos) > 1:
            raise ValueError('only one stream may define the minibatch size')
        self._streams = {si.m_name: si for si in self._infos}
        user.streams = Record(**self._streams)

    def stream_infos(self):
        return [StreamInformation(si.m_name, i, si.storage_format, si.dtype, si.sample_shape,
                                  si.m_defines_mb_size) for i, si in enumerate(self._infos)]

    def num_chunks(self):
        n = self._user.num_chunks()
        if n == 0:
            raise ValueError('Deserializer must provide at least one chunk')
        return n

    def chunk(self, chunk_id, seed):
        data = self._user.get_chunk(chunk_id)
        streams = {}
        for name, si in self._streams.items():
            if name not in data:
                raise ValueError("chunk %d of the user deserializer has no data for stream '%s'" % (chunk_id, name))
            value = data[name]
            dim = int(np.prod(si.sample_shape))
            # the user's arrays are copied: the source keeps no reference to what get_chunk returned
            if isinstance(value, list):
                value = [v if sp.issparse(v) else np.array(v, dtype=si.dtype).reshape(
                    (-1,) + si.sample_shape) for v in value]
                streams[name] = SequenceData.from_sequences(
                    [sp.csr_matrix(v.reshape(v.shape[0], dim), copy=True) if sp.issparse(v) else v for v in value])
            else:
                rows = sp.csr_matrix(value, copy=True) if sp.issparse(value) else \
                    np.array(value, dtype=si.dtype)
                if sp.issparse(rows):
                    rows = rows.reshape(rows.shape[0] * rows.shape[1] // dim, dim).tocsr()
                else:
                    rows = rows.reshape((-1,) + si.sample_shape)
                streams[name] = SequenceData.from_lengths(rows, np.ones(rows.shape[0], np.int64))
        counts = {len(s) for s in streams.values()}
        if len(counts) != 1:
            raise ValueError('chunk %d of the user deserializer has different numbers of sequences per stream'
                             % chunk_id)
        keys = chunk_id * (1 << 32) + np.arange(counts.pop(), dtype=np.int64)
        return Chunk(keys, streams)
