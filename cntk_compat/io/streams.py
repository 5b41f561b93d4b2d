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


def stream_dim(stream, name, who, swig_function, overloaded=True):
    """The dimension of a StreamDef of a deserializer that reads flat samples (CTF, HTK). CNTK 2.7 hands it to a
    SWIG function taking a size_t (``swig_function``): a Python int (a bool counts) or nothing else, with SWIG's
    error (NotImplementedError from an overloaded function, else TypeError); a StreamDef without a shape has no
    ``dim`` (AttributeError)."""
    if 'dim' not in stream:
        raise AttributeError("record has no attribute 'dim' (%s: stream '%s' was given no shape)" % (who, name))
    dim = stream['dim']
    if not isinstance(dim, int) or dim < 0:
        culprit = "(%s: stream '%s' has shape %r; its dimension must be a non-negative int)" % (who, name, dim)
        if overloaded:
            raise NotImplementedError("Wrong number or type of arguments for overloaded function '%s'. %s"
                                      % (swig_function, culprit))
        raise TypeError("in method '%s', argument 3 of type 'size_t' %s" % (swig_function, culprit))
    if dim < 1:
        raise ValueError("%s: stream '%s' has shape %r; its dimension must be positive" % (who, name, dim))
    if dim > MAX_SAMPLE_DIM:
        raise ValueError("%s: stream '%s' has shape %r; at most %d values per sample are supported"
                         % (who, name, dim, MAX_SAMPLE_DIM))
    return int(dim)


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
