"""Stream definitions (what a deserializer should read) and stream descriptions (what a source yields)."""
import numpy as np

from ._record import Record

StreamDefs = Record


def StreamDef(field=None, shape=None, is_sparse=False, transforms=None, context=None, scp=None, mlf=None,
              broadcast=None, defines_mb_size=False, max_sequence_length=65535):
    """Configuration of one stream of a built-in deserializer.

    ``field`` is the name of the stream inside the data (the CTF input name, 'image'/'label' for image
    deserializers, the CBF stream name, None for HTK), ``shape`` its dimension.
    """
    config = Record(stream_alias=field, is_sparse=is_sparse)
    if shape is not None:
        config['dim'] = shape
    if transforms is not None:
        config['transforms'] = transforms
    if context is not None:
        config['context'] = context
    if scp is not None:
        config['scp'] = scp
    if mlf is not None:
        config['mlf'] = mlf
        config['is_sparse'] = True
    if broadcast is not None:
        config['broadcast'] = broadcast
    config['defines_mb_size'] = bool(defines_mb_size)
    config['max_sequence_length'] = max_sequence_length
    return config


MAX_SAMPLE_DIM = 2 ** 31 - 1  # values per sample (sparse indices are int32 in the readers)


def stream_dim(stream, name, who):
    """The flat dimension of a StreamDef (``shape`` may be an int or a tuple)."""
    dim = stream.get('dim')
    if dim is None:
        raise ValueError("%s: stream '%s' needs a shape" % (who, name))
    dims = list(dim) if isinstance(dim, (tuple, list)) else [dim]
    for d in dims:
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)) or d < 1:
            raise ValueError("%s: stream '%s' has shape %r; its dimensions must be positive integers"
                             % (who, name, dim))
    total = int(np.prod([int(d) for d in dims], dtype=object))
    if total > MAX_SAMPLE_DIM:
        raise ValueError("%s: stream '%s' has shape %r, %d values per sample; at most %d are supported"
                         % (who, name, dim, total, MAX_SAMPLE_DIM))
    return total


class StreamConfiguration(object):
    """Configuration of a stream of the text-format reader (the older spelling of StreamDef)."""

    def __init__(self, name, dim, is_sparse=False, stream_alias='', defines_mb_size=False):
        self.m_stream_name = name
        self.m_dim = dim
        self.m_is_sparse = is_sparse
        self.m_stream_alias = stream_alias
        self.m_defines_mb_size = defines_mb_size


class _SampleLayout(tuple):
    """A stream's sample shape as CNTK's ``m_sample_layout`` (an NDShape) presents it."""

    def dimensions(self):
        return tuple(self)

    def rank(self):
        return len(self)

    def total_size(self):
        return int(np.prod(self, dtype=np.int64))


class StreamInformation(object):
    """Description of one stream of a minibatch source: name, id, storage format, dtype and shape.

    The ``m_*`` fields are CNTK's: ``m_storage_format`` and ``m_element_type`` hold its enum codes
    (cntk.cntk_py.StorageFormat_* / DataType_*); ``storage_format``, ``dtype`` and ``sample_shape`` give
    the same as 'dense'/'sparse', a numpy type and a tuple."""

    _storage_formats = ('dense', 'sparse')

    def __init__(self, name, stream_id, storage_format, dtype, shape, defines_mb_size=False):
        if storage_format not in self._storage_formats:
            raise ValueError("storage_format must be 'dense' or 'sparse', got %r" % (storage_format,))
        self.m_name = name
        self.m_id = stream_id
        self.storage_format = storage_format
        self.dtype = np.dtype(dtype).type
        self.sample_shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        self.m_defines_mb_size = bool(defines_mb_size)
        self.m_is_binary = False

    @property
    def m_storage_format(self):
        return self._storage_formats.index(self.storage_format)  # StorageFormat_Dense 0, SparseCSC 1

    @property
    def m_element_type(self):
        from ..core.dtypes import data_type_code
        return data_type_code(self.dtype)

    @property
    def m_sample_layout(self):
        return _SampleLayout(self.sample_shape)

    @property
    def name(self):
        return self.m_name

    @property
    def is_sparse(self):
        return self.storage_format == 'sparse'

    @property
    def shape(self):
        return self.sample_shape

    def __eq__(self, other):
        return isinstance(other, StreamInformation) and (self.m_name, self.m_id) == (other.m_name, other.m_id)

    def __hash__(self):
        return hash((self.m_name, self.m_id))

    def as_string(self):
        return "%s([%s])" % (self.m_name, " x ".join(str(d) for d in self.sample_shape))

    __str__ = __repr__ = as_string
