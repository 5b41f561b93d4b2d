"""Common ground of the built-in deserializers.

A deserializer exposes its data as chunks: ``num_chunks()`` and ``chunk(i, seed)`` returning a
:class:`Chunk` (sequence keys plus one :class:`SequenceData` per stream).  When it is not the
first deserializer of a composite source it is asked for sequences by key instead
(``sequences_for_keys``), which by default indexes the keys of all chunks once.
"""
import collections
import os
import threading

import numpy as np

from ..core.native_errors import MissingFileError, RuntimeValueError
from ._sequences import SequenceData
from .streams import StreamInformation


class Chunk(object):
    __slots__ = ('keys', 'streams')

    def __init__(self, keys, streams):
        self.keys = keys            # numpy array of sequence keys (ints or strings)
        self.streams = streams      # stream name -> SequenceData

    def __len__(self):
        return len(self.keys)


class DirectoryGivenError(IsADirectoryError, RuntimeError):
    """A directory given as a reader's input file: an IOError, and the RuntimeError CNTK 2.7 raises for it."""


class ReaderError(RuntimeValueError):
    """Input a reader cannot read (an empty file, malformed text): CNTK 2.7 fails on it with a RuntimeError."""


def check_input_file(reader, filename):
    """CNTK's errors for a reader's file argument: an empty name is a ValueError; a missing file, a directory
    and an empty file are RuntimeErrors (here also an IOError or a ValueError)."""
    if not filename:
        raise ValueError("%s: ParseValue: No value given for 'file'." % reader)
    if os.path.isdir(filename):
        raise DirectoryGivenError("%s: '%s' is a directory; give the path of a file" % (reader, filename))
    if not os.path.isfile(filename):
        raise MissingFileError("%s: input file '%s' does not exist" % (reader, filename))


class Deserializer(object):
    """Base class; subclasses set ``self._streams`` (name -> dict(shape, is_sparse, defines_mb_size))."""

    kind = 'Deserializer'
    multithreaded = False
    max_errors = 0      # malformed records tolerated (skipped with a warning) where the format allows it
    _cached_chunks = 2
    block_sequences = 0             # a randomized block extends over further chunks until it has this many sequences
    # frame_mode: whether the deserializer makes every sample a sequence of its own (CNTK's HTK deserializers);
    # other deserializers' sequences must be single samples there (CNTK's frame packer refuses longer ones)
    frames_in_frame_mode = False

    def __init__(self):
        self._config = {}
        self._key_index = None
        self._chunk_cache = collections.OrderedDict()
        self._lock = threading.Lock()

    def __getitem__(self, key):
        return self._config[key]

    def __setitem__(self, key, value):
        self._config[key] = value

    def __contains__(self, key):
        return key in self._config

    # read like CNTK's configuration Dictionary of the deserializer
    def keys(self):
        return self._config.keys()

    def items(self):
        return self._config.items()

    def values(self):
        return self._config.values()

    def get(self, key, default=None):
        return self._config.get(key, default)

    def stream_infos(self):
        return [StreamInformation(name, i, 'sparse' if s['is_sparse'] else 'dense', np.float32, s['shape'],
                                  s.get('defines_mb_size', False))
                for i, (name, s) in enumerate(self._streams.items())]

    def report_opening(self):
        """Called when a MinibatchSource opens the deserializer: prints what CNTK's native deserializer prints
        then (to stderr), if anything, and raises the configuration errors CNTK raises then."""

    def assembled_streams(self):
        """The streams whose chunks hold unfinished sequences that ``assemble(name, rows)`` finishes once they are
        cut into a minibatch (where the result depends on a sequence's position in the minibatch)."""
        return ()

    def num_chunks(self):
        raise NotImplementedError

    def chunk(self, chunk_id, seed):
        raise NotImplementedError

    def chunk_sequence_lengths(self, chunk_id):
        """The samples of each sequence of chunk ``chunk_id`` if known without loading it, else None (the
        reader then loads the chunk to learn them)."""
        return None

    def gather_sequences(self, chunk_ids, index, seed):
        """Per stream, the sequences ``index[i]`` of chunks ``chunk_ids[i]`` in that order, read without
        loading whole chunks, or None where the deserializer cannot (the reader then loads the chunks)."""
        return None

    def read_ahead(self, chunk_id):
        """A hint: the chunk the reader will ask for after the next ``chunk`` call. Deserializers that parse
        on threads start on it early; the others ignore it."""

    def _cached_chunk(self, chunk_id, seed):
        with self._lock:
            key = (chunk_id, seed)
            if key in self._chunk_cache:
                self._chunk_cache.move_to_end(key)
                return self._chunk_cache[key]
        chunk = self.chunk(chunk_id, seed)
        with self._lock:
            self._chunk_cache[key] = chunk
            while len(self._chunk_cache) > self._cached_chunks:
                self._chunk_cache.popitem(last=False)
        return chunk

    def _build_key_index(self):
        index = {}
        for c in range(self.num_chunks()):
            for i, k in enumerate(self.chunk(c, 0).keys.tolist()):
                index.setdefault(k, (c, i))
        return index

    def sequences_for_keys(self, keys, seed):
        """Per stream, the SequenceData of the sequences with ``keys`` that exist (None if none does),
        plus a boolean mask of the keys found."""
        if self._key_index is None:
            self._key_index = self._build_key_index()
        found = np.array([k in self._key_index for k in keys.tolist()], dtype=bool)
        where = [self._key_index[k] for k, f in zip(keys.tolist(), found) if f]
        if not where:
            return None, found
        by_chunk = collections.defaultdict(list)
        for pos, (c, i) in enumerate(where):
            by_chunk[c].append((pos, i))
        parts, order = {name: [] for name in self._streams}, []
        for c, items in sorted(by_chunk.items()):
            chunk = self._cached_chunk(c, seed)
            idx = np.array([i for _, i in items])
            order.extend(p for p, _ in items)
            for name in self._streams:
                parts[name].append(chunk.streams[name].take(idx))
        inverse = np.argsort(np.array(order, dtype=np.int64), kind='stable')
        return {name: SequenceData.concat(p).take(inverse) for name, p in parts.items()}, found
