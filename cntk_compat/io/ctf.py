"""CTFDeserializer: the CNTK Text Format reader.

The file is indexed once (a few seeks that cut it into chunks of at most ``chunkSizeInBytes`` at sequence
boundaries, where CNTK's indexer cuts them, so that randomization sees CNTK's chunks); chunks are read and
parsed only when the randomizer needs them.
"""
import os
import threading

import numpy as np

from ..core.native_errors import native_entry_point
from ._ctf_parse import CTFParser
from ._deserializer import Deserializer, ReaderError, check_input_file
from .streams import stream_dim

DEFAULT_CHUNK_SIZE_IN_BYTES = 32 * 1024 * 1024
_SCAN_BYTES = 8 * 1024 * 1024


_BOM = b'\xef\xbb\xbf'  # the UTF-8 byte order mark some editors write first; CNTK skips it


def _line_id(line):
    """The sequence id text of a CTF line (bytes), or None when the line has none."""
    if line.startswith(_BOM):
        line = line[len(_BOM):]
    head = line.split(b'|', 1)[0].strip()
    return head or None


def _first_line_has_id(path):
    """Whether the first non-blank line of the file has a sequence id (else its lines are sequences of their own)."""
    with open(path, 'rb') as f:
        for line in f:
            if line.strip(_BOM + b' \t\r\n'):
                return _line_id(line) is not None
    return True


class _CTFIndex(object):
    """Chunk boundaries (byte offsets at sequence starts) and, once known, the number of lines of each chunk:
    a chunk's line count comes from parsing it, or from counting newlines when a later chunk needs its
    first line number before this one was parsed (randomized order)."""

    def __init__(self, path, chunk_size):
        self.path = path
        self.offsets = []
        size = os.path.getsize(path)
        with open(path, 'rb') as f:
            pos = 0
            while pos < size:
                end = size if pos + chunk_size >= size else self._boundary(f, pos, pos + chunk_size, size)
                self.offsets.append(pos)
                pos = end
        self.offsets.append(size)
        self._lines = np.full(len(self.offsets) - 1, -1, np.int64)
        self._lock = threading.Lock()

    def __len__(self):
        return len(self._lines)

    def first_line(self, chunk_id):
        """The 0-based number of the first line of chunk ``chunk_id``."""
        with self._lock:
            uncounted = np.flatnonzero(self._lines[:chunk_id] < 0)
            if len(uncounted):
                with open(self.path, 'rb') as f:
                    for k in uncounted:
                        self._lines[k] = self._count_lines(f, self.offsets[k], self.offsets[k + 1])
            return int(self._lines[:chunk_id].sum())

    def set_line_count(self, chunk_id, count):
        self._lines[chunk_id] = count

    @staticmethod
    def _count_lines(f, begin, end):
        f.seek(begin)
        count, left = 0, end - begin
        while left > 0:
            piece = f.read(min(_SCAN_BYTES, left))
            count += piece.count(b'\n')
            left -= len(piece)
        return count

    @staticmethod
    def _line_before(f, start):
        """(offset, bytes) of the line that ends at ``start`` (> 0)."""
        back = 1 << 16
        while True:
            lo = max(0, start - back)
            f.seek(lo)
            text = f.read(start - lo)
            cut = text.rfind(b'\n', 0, len(text) - 1)
            if cut >= 0 or lo == 0:
                return lo + cut + 1, text[cut + 1:]
            back *= 4

    @classmethod
    def _boundary(cls, f, pos, target, size):
        """The end of the chunk that starts at ``pos``, as CNTK's indexer cuts it: after the last whole sequence
        that ends at or before ``target`` (the chunk size reached), or after the first sequence if that one
        alone is longer."""
        f.seek(target)
        line_start, _ = cls._line_before(f, target + 1)     # the line that holds byte ``target``
        f.seek(line_start)
        line = f.readline()
        line_id = _line_id(line)
        start = line_start
        while line_id is not None and start > pos:          # back to the start of its sequence
            prev_start, prev = cls._line_before(f, start)
            if _line_id(prev) != line_id:
                break
            start = prev_start
        if start > pos:
            return start
        # the chunk's first sequence reaches past target: it makes a chunk of its own
        start = line_start + len(line)
        f.seek(start)
        while start < size and line_id is not None:
            line = f.readline()
            if _line_id(line) != line_id:
                break
            start += len(line)
        return start


class _CTF(Deserializer):
    kind = 'CNTKTextFormatDeserializer'

    def __init__(self, filename, streams):
        super(_CTF, self).__init__()
        for name, s in streams.items():
            if s.get('stream_alias') is None:
                raise ValueError("CTFDeserializer: stream name for key %s must be specified" % name)
        # as CNTK 2.7: the streams' configurations are made (their dimensions checked) before the file is opened
        dims = {name: stream_dim(s, name, 'CTFDeserializer', 'new_StreamConfiguration') for name, s in streams.items()}
        check_input_file("CTFDeserializer", filename)
        if os.path.getsize(filename) == 0:
            raise ReaderError("CTFDeserializer: input file '%s' is empty" % filename)
        self.filename = filename
        self._streams_config = streams
        self._streams, spec, inputs = {}, [], {}
        for name, s in streams.items():
            dim = dims[name]
            is_sparse, defines_mb_size = bool(s.get('is_sparse', False)), bool(s.get('defines_mb_size', False))
            self._streams[name] = dict(shape=(dim,), is_sparse=is_sparse, defines_mb_size=defines_mb_size)
            spec.append((name, s['stream_alias'], dim, is_sparse))
            inputs[name] = dict(dim=dim, format='sparse' if is_sparse else 'dense', definesMBSize=defines_mb_size,
                                alias=s['stream_alias'])
        self._parser = CTFParser(filename, spec)
        self._config.update(type=self.kind, file=filename, input=inputs)  # chunkSizeInBytes: set by the user
        self._index = None
        self._next = None       # the chunk the reader will want next (read_ahead)
        self._started = None    # (chunk id, parse begun by the parser) of that chunk

    def report_opening(self):
        """CNTK 2.7 maps the file's input names to streams when a MinibatchSource opens the file: one name for
        two streams is its RuntimeError."""
        seen = {}
        for name, s in self._streams_config.items():
            alias = s['stream_alias']
            if alias in seen:
                raise ReaderError("CTFDeserializer: input name '%s' of stream '%s' is already given to stream '%s' "
                                  "(a name in the file maps to one stream)" % (alias, name, seen[alias]))
            seen[alias] = name

    @property
    def max_errors(self):
        """Malformed lines skipped (with a warning) before an error is raised; MinibatchSource sets it."""
        return self._parser.max_errors

    @max_errors.setter
    def max_errors(self, value):
        self._parser.max_errors = int(value)

    def _get_index(self):
        if self._index is None:
            chunk_size = int(self._config.get('chunkSizeInBytes', DEFAULT_CHUNK_SIZE_IN_BYTES))
            self._parser.file_has_ids = _first_line_has_id(self.filename)
            self._index = _CTFIndex(self.filename, chunk_size)
        return self._index

    def num_chunks(self):
        return len(self._get_index())

    def read_ahead(self, chunk_id):
        self._next = chunk_id

    def _start(self, chunk_id, share):
        index = self._get_index()
        begin, end = index.offsets[chunk_id], index.offsets[chunk_id + 1]
        with open(self.filename, 'rb') as f:
            f.seek(begin)
            data = f.read(end - begin)
        if begin == 0 and data.startswith(_BOM):
            data = b' ' * len(_BOM) + data[len(_BOM):]  # blanked, so byte offsets stay those of the file
        return chunk_id, self._parser.start(data, share)

    def chunk(self, chunk_id, seed):
        # the chunk read ahead (if it is this one) is already being parsed; the next one starts behind it,
        # and the two share the parsing threads
        with self._lock:
            started, self._started = self._started, None
            following, self._next = self._next, None
        if following == chunk_id:
            following = None
        if started is None or started[0] != chunk_id:
            started = self._start(chunk_id, 1.0 if following is None else 0.5)
        if following is not None:
            following = self._start(following, 0.5)
            with self._lock:
                self._started = following
        index = self._get_index()
        chunk, lines = self._parser.finish(started[1], index.first_line(chunk_id))
        index.set_line_count(chunk_id, lines)
        return chunk


@native_entry_point  # CNTK configures its readers natively: errors carry the call stack
def CTFDeserializer(filename, streams):
    """Reader of CNTK Text Format files: lines ``[Sequence_Id] (|Input_Name value ...)+``.

    Args:
        filename (str): the text file.
        streams: mapping of stream names to :func:`StreamDef` (``field`` is the input name in the
          file, ``shape`` the dimension, ``is_sparse`` whether values are ``index:value`` pairs).
    """
    return _CTF(filename, streams)
