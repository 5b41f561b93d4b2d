"""CNTK's v2 model messages written and read directly in protobuf's wire format, tensor values as raw bytes.

The protobuf runtime (cntk_proto) needs a tensor's values as Python numbers on both sides (a list to extend a
repeated field with, a container to iterate), which for a large model costs seconds per hundred million values
and several copies of the model in memory. Here the graph's Dictionary is encoded field by field in Python (it
is small), and each tensor's values are the numpy array's own little-endian bytes -- a packed repeated float or
double field is exactly those bytes after a length -- written without being copied; reading takes each tensor
as one numpy copy of its bytes in the file.

The bytes are the messages protobuf writes: fields in field-number order, proto3's rules for what is left out
(zero scalars, empty strings and packed fields; a set sub-message is written even when empty), map entries with
both their key and their value, in the dictionary's own order (protobuf's runtime writes them in an order that
changes from process to process; any order reads the same).

Models over 2 GB: a protobuf message cannot exceed 2**31 - 1 bytes, so CNTK 2.7 writes a model whose message
and tensor values together reach that size as the uint32 0x636e746b ("kntc" on disk), the uint32 size of the
message, the message with its tensors' values left out, then the values of each tensor (float32 or float64,
little-endian), in the order the tensors appear in the message. Both layouts are read and written here.
"""
import mmap
import os
import struct
import sys

import numpy as np
import torch

from .cntkv2_values import (CODE_OF_DTYPE, DTYPE_OF_CODE, FORMAT_VERSION, Float32, Shape, SizeT, StoredArray,
                            StoredAxis, _dim_from_file, _dim_to_file)

MAGIC = 0x636e746b
INT_MAX = 2 ** 31 - 1
_MASK64 = (1 << 64) - 1
_LARGE_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))  # what the layout over 2 GB holds (CNTK: Float, Double)

# the DictionaryValue oneof's fields and their wire types (3 bool, 4 int32, 5 uint64, 6 float, 7 double, 8 string,
# 9 NDShape, 10 Axis, 11 Vector, 12 Dictionary, 13 NDArrayView)
_VALUE_WIRE = {3: 0, 4: 0, 5: 0, 6: 5, 7: 1, 8: 2, 9: 2, 10: 2, 11: 2, 12: 2, 13: 2}

# DictionaryValue.Type
_NONE, _BOOL, _INT, _SIZE_T, _FLOAT, _DOUBLE, _STRING, _SHAPE, _AXIS, _VECTOR, _DICTIONARY, _ARRAY = range(12)


def _varint(n):
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_SMALL_VARINTS = [_varint(n) for n in range(128)]


def _uvarint(n):
    return _SMALL_VARINTS[n] if 0 <= n < 128 else _varint(n & _MASK64)


class _Parts(object):
    """A message being encoded: small bytes gathered in ``head``, tensor values kept as buffers of their own."""
    __slots__ = ("parts", "head", "size")

    def __init__(self):
        self.parts, self.head, self.size = [], bytearray(), 0

    def add(self, data):
        self.head += data

    def add_buffer(self, view):
        if self.head:
            self.parts.append(self.head)
            self.size += len(self.head)
            self.head = bytearray()
        self.parts.append(view)
        self.size += view.nbytes

    def length(self):
        return self.size + len(self.head)

    def embed(self, tag, child):
        """``child`` as the length-delimited field with the (one-byte) ``tag``."""
        self.head.append(tag)
        self.head += _uvarint(child.length())
        for part in child.parts:
            if isinstance(part, bytearray):
                self.head += part
            else:
                self.add_buffer(part)
        self.head += child.head

    def finish(self):
        if self.head:
            self.parts.append(self.head)
            self.size += len(self.head)
            self.head = bytearray()
        return self.parts


class _Encoder(object):
    """Encodes a Dictionary (as Python values, see cntkv2_values.fill_value); ``values_inline`` False leaves the
    tensors' values out and lists the arrays in ``arrays`` in the order they appear (the layout over 2 GB)."""

    def __init__(self, values_inline):
        self.values_inline = values_inline
        self.arrays = []

    def dictionary(self, values):
        out = _Parts()
        out.add(b"\x08" + _uvarint(FORMAT_VERSION))
        for key, value in values.items():
            entry = _Parts()
            entry.add(b"\x0a")
            key_bytes = key.encode("utf-8")
            entry.add(_uvarint(len(key_bytes)))
            entry.add(key_bytes)
            entry.embed(0x12, self.value(value))
            out.embed(0x12, entry)
        return out

    def value(self, value):
        out = _Parts()
        out.add(b"\x08" + _uvarint(FORMAT_VERSION))
        if value is None:
            return out
        if isinstance(value, bool):
            out.add(bytes((0x10, _BOOL, 0x18, 1 if value else 0)))
        elif isinstance(value, SizeT):
            out.add(bytes((0x10, _SIZE_T, 0x28)) + _uvarint(int(value)))
        elif isinstance(value, (int, np.integer)):
            n = int(value)
            if not -2 ** 31 <= n < 2 ** 31:
                raise ValueError("Value out of range: %d" % n)
            out.add(bytes((0x10, _INT, 0x20)) + _uvarint(n))
        elif isinstance(value, Float32):
            out.add(bytes((0x10, _FLOAT, 0x35)) + np.float32(float(value)).tobytes())
        elif isinstance(value, (float, np.floating)):
            out.add(bytes((0x10, _DOUBLE, 0x39)) + struct.pack("<d", float(value)))
        elif isinstance(value, str):
            data = value.encode("utf-8")
            out.add(bytes((0x10, _STRING, 0x42)) + _uvarint(len(data)) + data)
        elif isinstance(value, Shape):
            out.add(bytes((0x10, _SHAPE)))
            out.embed(0x4a, _shape(reversed(value)))
        elif isinstance(value, StoredAxis):
            out.add(bytes((0x10, _AXIS)))
            axis = _Parts()
            if value.index:
                axis.add(b"\x08" + _uvarint(int(value.index)))
            if value.name:
                name = value.name.encode("utf-8")
                axis.add(b"\x12" + _uvarint(len(name)) + name)
            if value.ordered:
                axis.add(b"\x18\x01")
            out.embed(0x52, axis)
        elif isinstance(value, list):
            out.add(bytes((0x10, _VECTOR)))
            vector = _Parts()
            for v in value:
                vector.embed(0x0a, self.value(v))
            out.embed(0x5a, vector)
        elif isinstance(value, dict):
            out.add(bytes((0x10, _DICTIONARY)))
            out.embed(0x62, self.dictionary(value))
        elif isinstance(value, np.ndarray):
            out.add(bytes((0x10, _ARRAY)))
            out.embed(0x6a, self.array(value))
        else:
            raise ValueError("save: a value of type %s has no form in CNTK's format" % type(value).__name__)
        return out

    def array(self, array):
        dtype = np.dtype(array.dtype)
        if dtype not in CODE_OF_DTYPE:
            raise ValueError("save: tensors of type %s have no form in CNTK's format" % dtype)
        out = _Parts()
        out.add(b"\x08" + _uvarint(CODE_OF_DTYPE[dtype]))
        out.embed(0x1a, _shape(int(d) for d in reversed(array.shape)))
        if not self.values_inline:
            self.arrays.append(array)
            return out
        flat = np.ascontiguousarray(array).reshape(-1)
        if dtype in (np.float32, np.float16):  # as CNTK writes them: float16 values widened to float
            tag, data = 0x22, _little_endian(flat.astype(np.float32, copy=False))
        elif dtype == np.float64:
            tag, data = 0x2a, _little_endian(flat)
        elif dtype == np.int16:  # sint32, zigzag varints
            tag, data = 0x3a, b"".join(_uvarint((int(v) << 1) ^ (int(v) >> 31)) for v in flat.astype(np.int32))
        else:  # int8 as bytes
            tag, data = 0x32, _little_endian(flat)
        values = _Parts()
        if len(data):
            values.add(b"\x0a" + _uvarint(len(data)))
            values.add_buffer(data) if isinstance(data, memoryview) else values.add(data)
        out.embed(tag, values)
        return out


def _shape(dims):
    out = _Parts()
    packed = b"".join(_uvarint(_dim_to_file(d)) for d in dims)
    if packed:
        out.add(b"\x0a" + _uvarint(len(packed)) + packed)
    return out


def _little_endian(flat):
    """A byte view of a contiguous 1-D array's values in little-endian order (the array itself when it is)."""
    flat = flat.astype(flat.dtype.newbyteorder("<"), copy=False)
    return memoryview(flat).cast("B")


def dictionary_parts(values):
    """The file CNTK 2.7 writes for the Dictionary ``values`` (Python values as cntkv2_values.fill_value takes
    them), as a list of bytes-like parts to write in order: one protobuf message, or, when the message and its
    tensors' values together reach 2**31 - 1 bytes, the layout for models over 2 GB (see the module docstring).
    The tensors' values are views of the arrays, not copies."""
    meta = _Encoder(values_inline=False)
    head = meta.dictionary(values).finish()
    head_size = sum(len(p) for p in head)
    if head_size + sum(a.nbytes for a in meta.arrays) < INT_MAX:
        return _Encoder(values_inline=True).dictionary(values).finish()
    for array in meta.arrays:
        if array.dtype not in _LARGE_DTYPES:
            raise ValueError("save: CNTK's format for models over 2 GB holds float32 and float64 tensors only, not %s"
                             % array.dtype)
    parts = [struct.pack("<II", MAGIC, head_size)] + head
    for array in meta.arrays:
        parts.append(_little_endian(np.ascontiguousarray(array).reshape(-1)))
    return parts


def dictionary_bytes(values):
    return b"".join(dictionary_parts(values))


# ----------------------------------------------------------------------------------------------------- reading
class WireError(ValueError):
    pass


class _Reader(object):
    """Decodes from a buffer (bytes, mmap); tensor values are copied out of it, nothing else keeps it."""

    def __init__(self, buffer, what, fd=None):
        self.buf = memoryview(buffer).cast("B")
        self.what = what
        self.fd = fd  # the file ``buffer`` maps: large tensors are read from it straight into their arrays
        self.deferred = []  # arrays whose values follow the message (the layout over 2 GB), in order

    def varint(self, pos, end):
        buf, shift, result = self.buf, 0, 0
        while True:
            if pos >= end:
                raise WireError("truncated varint")
            b = buf[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if b < 0x80:
                return result, pos
            shift += 7
            if shift >= 70:
                raise WireError("varint too long")

    def fields(self, pos, end):
        """(field number, wire type, value or (start, end) of a length-delimited field) for each field."""
        while pos < end:
            key, pos = self.varint(pos, end)
            number, wire = key >> 3, key & 7
            if wire == 0:
                value, pos = self.varint(pos, end)
            elif wire == 2:
                size, pos = self.varint(pos, end)
                if pos + size > end:
                    raise WireError("truncated field %d" % number)
                value, pos = (pos, pos + size), pos + size
            elif wire == 1:
                if pos + 8 > end:
                    raise WireError("truncated field %d" % number)
                value, pos = (pos, pos + 8), pos + 8
            elif wire == 5:
                if pos + 4 > end:
                    raise WireError("truncated field %d" % number)
                value, pos = (pos, pos + 4), pos + 4
            else:
                raise WireError("field %d has wire type %d" % (number, wire))
            if number == 0:
                raise WireError("field number 0")
            yield number, wire, value

    def string(self, span):
        return bytes(self.buf[span[0]:span[1]]).decode("utf-8")

    def dictionary(self, start, end, where):
        entries = {}
        for number, wire, value in self.fields(start, end):
            if number == 2 and wire == 2:
                key, entry = "", None
                for n, w, v in self.fields(*value):
                    if n == 1 and w == 2:
                        key = self.string(v)
                    elif n == 2 and w == 2:
                        entry = v
                entries[key] = entry  # a repeated key: the last entry wins, as in protobuf's maps
        return {key: None if entry is None else self.value(entry[0], entry[1], "%s/%s" % (where, key))
                for key, entry in entries.items()}

    def value(self, start, end, where):
        number, payload = None, None
        for n, wire, value in self.fields(start, end):
            if _VALUE_WIRE.get(n) == wire:  # a oneof: the last member set wins (others: unknown fields)
                number, payload = n, value
        if number is None:
            return None
        wire = _VALUE_WIRE[number]
        if number == 3 and wire == 0:
            return bool(payload)
        if number == 4 and wire == 0:
            payload &= 0xFFFFFFFF
            return payload - (1 << 32) if payload >= 1 << 31 else payload
        if number == 5 and wire == 0:
            return int(payload)
        if number == 6 and wire == 5:
            return float(np.frombuffer(self.buf[payload[0]:payload[1]], "<f4")[0])
        if number == 7 and wire == 1:
            return struct.unpack("<d", self.buf[payload[0]:payload[1]])[0]
        if number == 8 and wire == 2:
            return self.string(payload)
        if number == 9 and wire == 2:
            return Shape(_dim_from_file(d) for d in reversed(self.shape_dims(*payload)))
        if number == 10 and wire == 2:
            index, name, ordered = 0, "", False
            for n, w, v in self.fields(*payload):
                if n == 1 and w == 0:
                    v &= 0xFFFFFFFF
                    index = v - (1 << 32) if v >= 1 << 31 else v
                elif n == 2 and w == 2:
                    name = self.string(v)
                elif n == 3 and w == 0:
                    ordered = bool(v)
            return StoredAxis(index, name, ordered)
        if number == 11 and wire == 2:
            return [self.value(v[0], v[1], where) for n, w, v in self.fields(*payload) if n == 1 and w == 2]
        if number == 12 and wire == 2:
            return self.dictionary(payload[0], payload[1], where)
        return self.array(payload[0], payload[1], where)

    def single_packed(self, start, end):
        """(start, end) of the packed field 1 when it is the only field of the values message, else None."""
        found = None
        for number, wire, value in self.fields(start, end):
            if found is not None or number != 1 or wire != 2:
                return None
            found = value
        return found

    def shape_dims(self, start, end):
        """The dimensions of an NDShape message (file order), packed or not."""
        dims = []
        for n, w, v in self.fields(start, end):
            if n == 1 and w == 2:
                dims.extend(self.packed_varints(*v))
            elif n == 1 and w == 0:
                dims.append(v)
        return dims

    def packed_varints(self, start, end):
        """The values of a repeated varint field's (packed) bytes."""
        out, pos = [], start
        while pos < end:
            value, pos = self.varint(pos, end)
            out.append(value)
        return out

    def repeated(self, start, end, kind, where):
        """The values of a FloatValues/DoubleValues/IntValues/BytesValue message: packed or not, in order."""
        chunks = []
        for number, wire, value in self.fields(start, end):
            if number != 1:
                continue
            if kind == "bytes":
                if wire == 2:  # a singular field: the last one counts
                    chunks = [np.frombuffer(self.buf[value[0]:value[1]], np.uint8)]
            elif kind == "float" and wire in (2, 5):
                chunks.append(np.frombuffer(self.buf[value[0]:value[1]], "<f4"))
            elif kind == "double" and wire in (2, 1):
                chunks.append(np.frombuffer(self.buf[value[0]:value[1]], "<f8"))
            elif kind == "sint32" and wire == 2:
                zigzag = np.array(self.packed_varints(*value), dtype=np.uint64)
                chunks.append(_unzigzag(zigzag))
            elif kind == "sint32" and wire == 0:
                chunks.append(_unzigzag(np.array([value], dtype=np.uint64)))
            else:
                raise WireError("%s: tensor values of wire type %d" % (where, wire))
        return chunks

    def array(self, start, end, where):
        data_type, storage, dims, values = 0, 0, [], None
        for number, wire, value in self.fields(start, end):
            if number == 1 and wire == 0:
                data_type = value
            elif number == 2 and wire == 0:
                storage = value
            elif number == 3 and wire == 2:
                dims = self.shape_dims(*value)
            elif 4 <= number <= 7 and wire == 2:
                values = ({4: "float", 5: "double", 6: "bytes", 7: "sint32"}[number], value)
        dtype = DTYPE_OF_CODE.get(data_type)
        if dtype is None:
            raise ValueError("%s: tensor of unknown data type %d" % (where, data_type))
        shape = tuple(_dim_from_file(d) for d in reversed(dims))
        n = int(np.prod(shape)) if shape else 1
        if values is None:
            if dtype in _LARGE_DTYPES and n > 0:  # its values may follow the message (the layout over 2 GB)
                stored = StoredArray(None)
                self.deferred.append((stored, dtype, shape, where))
                return stored
            flat = np.zeros(0, dtype)
        elif self.fd is not None and values[0] in _DIRECT and _DIRECT[values[0]] == dtype and \
                self.single_packed(*values[1]) is not None and n * dtype.itemsize >= _DIRECT_MIN_BYTES:
            # one packed field of the element type: read from the file into the array (no copy through the map)
            start, stop = self.single_packed(*values[1])
            if stop - start != n * dtype.itemsize:
                raise ValueError("%s: tensor of shape %s holds %d values, expected %d"
                                 % (where, shape, (stop - start) // dtype.itemsize, n))
            array = empty_array(shape, dtype)
            _pread_into(self.fd, memoryview(array).cast("B"), start, where)
            return StoredArray(array if sys.byteorder == "little" else array.byteswap())
        else:
            chunks = self.repeated(values[1][0], values[1][1], values[0], where)
            if values[0] == "bytes":  # the element type's own bytes
                raw = chunks[0].tobytes() if chunks else b""
                flat = np.frombuffer(raw[:len(raw) - len(raw) % dtype.itemsize], dtype.newbyteorder("<"))
                if len(raw) % dtype.itemsize:
                    raise ValueError("%s: buffer size must be a multiple of element size" % where)
            else:
                flat = np.concatenate(chunks) if len(chunks) > 1 else (chunks[0] if chunks else np.zeros(0, dtype))
        if storage != 0 and flat.size != n:
            raise ValueError("%s: a sparse stored tensor (storage format %d) holds %d values, not the %d of its "
                             "dense layout (the only layout CNTK's serializer writes)" % (where, storage, flat.size, n))
        if flat.size != n:
            raise ValueError("%s: tensor of shape %s holds %d values, expected %d" % (where, shape, flat.size, n))
        # one copy, in the element type, native byte order, aligned and writable; the buffer is not kept
        return StoredArray(flat.astype(dtype.newbyteorder("="), copy=True).reshape(shape))


_DIRECT = {"float": np.dtype(np.float32), "double": np.dtype(np.float64)}
_DIRECT_MIN_BYTES = 1 << 20
_READ_CHUNK = 1 << 26  # bytes per read call


def empty_array(shape, dtype):
    """An uninitialized float32/float64 array for a large tensor, allocated by torch (numpy asks the kernel for
    transparent huge pages on large arrays, whose first touch can stall for seconds on a loaded machine while the
    kernel compacts memory); the Parameter made from it keeps the same memory."""
    return torch.empty(tuple(shape), dtype=torch.float32 if dtype == np.float32 else torch.float64).numpy()


def _pread_into(fd, view, offset, where):
    got = 0
    while got < len(view):
        n = os.preadv(fd, [view[got:got + _READ_CHUNK]], offset + got)
        if not n:
            raise ValueError("load_model: the values of %s end early (the file is truncated)" % where)
        got += n


def _unzigzag(z):
    return ((z >> np.uint64(1)).astype(np.int64) ^ -(z & np.uint64(1)).astype(np.int64)).astype(np.int32)


def is_large_layout(head):
    """True if ``head`` (the first bytes of a file) starts CNTK's layout for models over 2 GB."""
    return len(head) >= 8 and struct.unpack("<I", bytes(head[:4]))[0] == MAGIC


def parse_dictionary(buffer, what, fd=None):
    """The Dictionary in ``buffer`` (one message), as Python values; tensors without values are an error. Nothing
    refers to ``buffer`` afterwards (an mmap can be closed). ``fd``: the file ``buffer`` maps, from which large
    tensors are read straight into their arrays."""
    reader = _Reader(buffer, what, fd)
    try:
        values = reader.dictionary(0, len(reader.buf), what)
    except (WireError, UnicodeDecodeError, IndexError) as e:
        raise RuntimeError("load_model: %s looks like a CNTK v2 model but is truncated or corrupt (%s)"
                           % (what, e)) from None
    finally:
        reader.buf.release()
    for stored, dtype, shape, where in reader.deferred:  # no values in the message and none after it: empty
        n = int(np.prod(shape)) if shape else 1
        raise ValueError("%s: tensor of shape %s holds 0 values, expected %d" % (where, shape, n))
    return values


def read_large(f, what):
    """The Dictionary of a file in the layout over 2 GB, read from the open binary file ``f`` (at its start): the
    message, then each tensor's values read straight into its array."""
    head = f.read(8)
    magic, size = struct.unpack("<II", head)
    message = f.read(size)
    if len(message) != size:
        raise RuntimeError("load_model: %s is truncated (its model description ends early)" % what)
    reader = _Reader(message, what)
    try:
        values = reader.dictionary(0, size, what)
    except (WireError, UnicodeDecodeError, IndexError) as e:
        raise RuntimeError("load_model: %s looks like a CNTK v2 model but is truncated or corrupt (%s)"
                           % (what, e)) from None
    del message, reader.buf
    for stored, dtype, shape, where in reader.deferred:
        array = empty_array(shape, dtype)
        view = memoryview(array).cast("B")
        got = 0
        while got < len(view):
            n = f.readinto(view[got:got + _READ_CHUNK])
            if not n:
                raise ValueError("load_model: %s is truncated (the values of %s end early)" % (what, where))
            got += n
        stored.array = array if sys.byteorder == "little" else array.byteswap()
    if f.read(1):
        raise ValueError("load_model: %s has bytes after its last tensor's values" % what)
    return values


def read_file(filename, what):
    """The Dictionary in the CNTK v2 model file ``filename``, either layout; each tensor's values are copied once,
    from the file's pages (mapped read-only) or read straight into their arrays."""
    with open(filename, "rb") as f:
        head = f.read(8)
        f.seek(0)
        if is_large_layout(head):
            return read_large(f, what)
        try:
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):  # an empty file, or a file system that cannot map it
            return parse_dictionary(f.read(), what)
        try:
            return parse_dictionary(mapped, what, f.fileno() if hasattr(os, "preadv") else None)
        finally:
            try:
                mapped.close()
            except BufferError:  # a view still held by an error's traceback: closed when it is collected
                pass
