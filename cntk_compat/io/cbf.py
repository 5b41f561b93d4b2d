"""CBFDeserializer: the CNTK binary format (prefix, chunks, header with an offset table at the end).

All numbers little-endian.  Header: magic, chunk count, stream count, per stream (storage byte,
length-prefixed ASCII name, element-type byte, sample dim), per chunk (offset int64, sequences uint32,
samples uint32), then the header's own offset as the file's last 8 bytes.  A chunk holds the sequence
sample counts, then per stream all its sequences: dense (N, N*dim values) or sparse (N, NNZ, values,
indices, per-sample nnz counts).
"""
import struct

import numpy as np
import scipy.sparse as sp

from ..core.native_errors import native_entry_point
from ._deserializer import Chunk, Deserializer, check_input_file
from ._sequences import SequenceData

MAGIC_NUMBER = 0x636e746b5f62696e
CBF_VERSION = 1
_ELEMENT_TYPES = {0: np.dtype('<f4'), 1: np.dtype('<f8')}


class _Reader(object):
    def __init__(self, data, filename, what):
        self.data, self.pos, self.filename, self.what = data, 0, filename, what

    def take(self, fmt):
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise IOError("%s: truncated %s (needed %d more bytes at offset %d)"
                          % (self.filename, self.what, size, self.pos))
        values = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return values if len(values) > 1 else values[0]

    def array(self, dtype, count):
        size = np.dtype(dtype).itemsize * count
        if self.pos + size > len(self.data):
            raise IOError("%s: truncated %s (needed %d bytes at offset %d)" % (self.filename, self.what, size, self.pos))
        out = np.frombuffer(self.data, dtype, count, self.pos)
        self.pos += size
        return out


class _CBF(Deserializer):
    kind = 'CNTKBinaryFormatDeserializer'

    def __init__(self, filename, streams):
        super(_CBF, self).__init__()
        check_input_file("CBFDeserializer", filename)
        self.filename = filename
        self._file_streams, self._chunks = self._read_header()
        by_name = {s[0]: s for s in self._file_streams}
        self._streams, self._rename = {}, {}
        selected = streams.items() if streams else [(s[0], {}) for s in self._file_streams]
        for name, s in selected:
            alias = s.get('stream_alias') or name
            if alias not in by_name and name in by_name:     # files written by ctf2bin use the stream names
                alias = name
            if alias not in by_name:
                raise ValueError("CBFDeserializer: stream '%s' is not in '%s' (it has: %s)"
                                 % (alias, filename, ", ".join(by_name)))
            _, is_sparse, _, dim = by_name[alias]
            self._streams[name] = dict(shape=(dim,), is_sparse=is_sparse,
                                       defines_mb_size=bool(s.get('defines_mb_size', False)))
            self._rename[alias] = name

    def _read_header(self):
        with open(self.filename, 'rb') as f:
            head = f.read(12)
            f.seek(0, 2)
            size = f.tell()
            if len(head) < 12 or struct.unpack('<Q', head[:8])[0] != MAGIC_NUMBER:
                raise IOError("%s: not a CNTK binary format file (magic number missing)" % self.filename)
            if struct.unpack('<I', head[8:12])[0] != CBF_VERSION:
                raise IOError("%s: unsupported CBF version %d" % (self.filename, struct.unpack('<I', head[8:12])[0]))
            f.seek(size - 8)
            header_offset = struct.unpack('<q', f.read(8))[0]
            if not 12 <= header_offset < size - 8:
                raise IOError("%s: truncated file or bad header offset %d" % (self.filename, header_offset))
            f.seek(header_offset)
            r = _Reader(f.read(size - 8 - header_offset), self.filename, 'header')
        if r.take('<Q') != MAGIC_NUMBER:
            raise IOError("%s: header sentinel missing at offset %d" % (self.filename, header_offset))
        num_chunks, num_streams = r.take('<I'), r.take('<I')
        streams = []
        for _ in range(num_streams):
            storage = r.take('<B')
            name = bytes(r.array(np.uint8, r.take('<I'))).decode('ascii')
            etype = r.take('<B')
            if storage not in (0, 1) or etype not in _ELEMENT_TYPES:
                raise IOError("%s: stream '%s' has unknown storage %d / element type %d"
                              % (self.filename, name, storage, etype))
            streams.append((name, storage == 1, etype, r.take('<I')))
        chunks = [r.take('<qII') for _ in range(num_chunks)]
        ends = [c[0] for c in chunks[1:]] + [header_offset]
        return streams, [(c[0], e, c[1]) for c, e in zip(chunks, ends)]

    def num_chunks(self):
        return len(self._chunks)

    def chunk(self, chunk_id, seed):
        begin, end, num_seqs = self._chunks[chunk_id]
        with open(self.filename, 'rb') as f:
            f.seek(begin)
            r = _Reader(f.read(end - begin), self.filename, 'chunk %d' % chunk_id)
        r.array('<u4', num_seqs)
        out = {}
        for name, is_sparse, etype, dim in self._file_streams:
            dtype = _ELEMENT_TYPES[etype]
            rows, lengths = [], np.zeros(num_seqs, np.int64)
            for s in range(num_seqs):
                n = lengths[s] = r.take('<I')
                if is_sparse:
                    nnz = r.take('<i')
                    values, indices = r.array(dtype, nnz), r.array('<i4', nnz)
                    counts = r.array('<i4', n)
                    indptr = np.concatenate([[0], np.cumsum(counts)])
                    if indptr[-1] != nnz or (nnz and (indices.min() < 0 or indices.max() >= dim)):
                        raise IOError("%s: chunk %d, sequence %d of stream '%s' has inconsistent sparse data"
                                      % (self.filename, chunk_id, s, name))
                    rows.append(sp.csr_matrix((values.astype(np.float32), indices, indptr), shape=(n, dim)))
                else:
                    rows.append(r.array(dtype, n * dim).astype(np.float32).reshape(n, dim))
            if name in self._rename:
                data = sp.vstack(rows, format='csr') if is_sparse else np.concatenate(rows)
                out[self._rename[name]] = SequenceData.from_lengths(data, lengths)
        first = sum(c[2] for c in self._chunks[:chunk_id])
        return Chunk(np.arange(first, first + num_seqs, dtype=np.int64), out)


@native_entry_point  # CNTK configures its readers natively: errors carry the call stack
def CBFDeserializer(filename, streams={}):
    """Reader of CNTK binary format files; ``streams`` maps names to StreamDefs whose ``field`` is the
    stream name in the file (empty: all streams of the file under their own names)."""
    return _CBF(filename, streams)
