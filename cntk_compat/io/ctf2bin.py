"""Converting CNTK Text Format files to the CNTK binary format (what CNTK's ``ctf2bin`` script does).

``process(input_file, output_file, streams, element_type)`` with ``streams`` a list of header lines
``"<name> <input name in the CTF file> dense|sparse <dim>"``.  The binary file stores each stream
under its name, in chunks of whole sequences of about ``chunk_size`` bytes of text.
"""
import enum
import struct

import numpy as np

from .cbf import CBF_VERSION, MAGIC_NUMBER
from .ctf import _CTF
from .streams import StreamDef


class ElementType(enum.IntEnum):
    FLOAT = 0
    DOUBLE = 1


_NUMPY_TYPES = {ElementType.FLOAT: np.dtype('<f4'), ElementType.DOUBLE: np.dtype('<f8')}


def _parse_header_line(line):
    parts = line.split()
    if len(parts) != 4 or parts[2] not in ('dense', 'sparse') or not parts[3].isdigit():
        raise ValueError("ctf2bin: expected a stream as '<name> <input name> dense|sparse <dim>', got %r" % line)
    return parts[0], parts[1], parts[2] == 'sparse', int(parts[3])


def _write_chunk(out, chunk, streams, dtype):
    sizes = np.max([chunk.streams[name].lengths for name, _, _, _ in streams], axis=0)
    out.write(sizes.astype('<u4').tobytes())
    for name, _, is_sparse, _ in streams:
        data = chunk.streams[name]
        for rows in data.sequences():
            out.write(struct.pack('<I', rows.shape[0]))
            if is_sparse:
                out.write(struct.pack('<i', rows.nnz))
                out.write(rows.data.astype(dtype).tobytes())
                out.write(rows.indices.astype('<i4').tobytes())
                out.write(np.diff(rows.indptr).astype('<i4').tobytes())
            else:
                out.write(np.ascontiguousarray(rows, dtype=dtype).tobytes())
    return len(sizes), int(sizes.sum())


def process(input_file, output_file, streams, element_type=ElementType.FLOAT, chunk_size=32 << 20):
    """Convert the CTF file ``input_file`` into the CBF file ``output_file``."""
    parsed = [_parse_header_line(line) for line in streams]
    if not parsed:
        raise ValueError('ctf2bin: no streams given')
    dtype = _NUMPY_TYPES[ElementType(element_type)]
    reader = _CTF(input_file, {name: StreamDef(field=alias, shape=dim, is_sparse=is_sparse)
                               for name, alias, is_sparse, dim in parsed})
    reader['chunkSizeInBytes'] = int(chunk_size)
    chunks = []
    with open(output_file, 'wb') as out:
        out.write(struct.pack('<QI', MAGIC_NUMBER, CBF_VERSION))
        for chunk_id in range(reader.num_chunks()):
            offset = out.tell()
            chunks.append((offset,) + _write_chunk(out, reader.chunk(chunk_id, 0), parsed, dtype))
        header_offset = out.tell()
        out.write(struct.pack('<QII', MAGIC_NUMBER, len(chunks), len(parsed)))
        for name, _, is_sparse, dim in parsed:
            encoded = name.encode('ascii')
            out.write(struct.pack('<BI', int(is_sparse), len(encoded)) + encoded)
            out.write(struct.pack('<BI', int(ElementType(element_type)), dim))
        for chunk in chunks:
            out.write(struct.pack('<qII', *chunk))
        out.write(struct.pack('<q', header_offset))
