"""The primitive values of CNTK's legacy v1 binary model format (CNTK 1.x / BrainScript ``File`` streams).

Little-endian throughout: size_t is 8 bytes, int and the rank/dimensions of a TensorShape 4, bool and char 1;
strings and section markers ("BCN", "BNodeList", ...) are UTF-16 code units ending in a 0 unit. A matrix is a
type char ('d' dense), then "BMAT", element size, name, format, rows, columns, the column-major values, "EMAT".
"""
import struct

import numpy as np


class V1FormatError(ValueError):
    """The bytes are not what CNTK's v1 format has at this point."""


class Stream(object):
    def __init__(self, data, what):
        self.data, self.what, self.pos = data, what, 0
        self.context = ""  # the node being read, for error messages

    def fail(self, message, at=None):
        raise V1FormatError("load_model: %s (CNTK v1 model)%s, at byte offset %d: %s"
                            % (self.what, self.context, self.pos if at is None else at, message))

    def _take(self, n):
        if self.pos + n > len(self.data):
            self.fail("the file ends after %d bytes, %d more expected" % (len(self.data), self.pos + n - len(self.data)))
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def _unpack(self, fmt):
        return struct.unpack("<" + fmt, self._take(struct.calcsize("<" + fmt)))[0]

    def size_t(self):
        return self._unpack("Q")

    def int32(self):
        return self._unpack("i")

    def uint32(self):
        return self._unpack("I")

    def float32(self):
        return self._unpack("f")

    def float64(self):
        return self._unpack("d")

    def boolean(self):
        return self._take(1) != b"\x00"

    def char(self):
        return self._take(1).decode("latin-1")

    def wstring(self):
        start = self.pos
        end = start
        while True:
            if end + 2 > len(self.data):
                self.fail("a string starting here has no end", start)
            if self.data[end:end + 2] == b"\x00\x00":
                break
            end += 2
        self.pos = end + 2
        return self.data[start:end].decode("utf-16-le")

    def try_marker(self, name):
        encoded = (name + "\x00").encode("utf-16-le")
        if self.data[self.pos:self.pos + len(encoded)] == encoded:
            self.pos += len(encoded)
            return True
        return False

    def marker(self, name):
        if not self.try_marker(name):
            self.fail("expected the section marker %r" % name)

    def shape(self, accept_legacy=False):
        """A TensorShape (C++ order, innermost first); the legacy form is size_t W, H, C."""
        rank = self.uint32()
        if rank == 0:
            return ()
        first = self.uint32()
        if accept_legacy and first == 0:  # the high half of a size_t W: the old (W, H, C) layout
            last = self.size_t()
            return (self.size_t(), rank, last)
        return (first,) + tuple(self.uint32() for _ in range(rank - 1))

    def bools(self):
        return [self.boolean() for _ in range(self.size_t())]

    def matrix(self, dtype):
        at = self.pos
        kind = self.char()
        if kind != "d":
            self.fail("a %s matrix; only dense matrices ('d') are read" % ("sparse" if kind == "s" else repr(kind)), at)
        self.marker("BMAT")
        size = self.size_t()
        if size not in (4, 8):
            self.fail("matrix element size %d (expected 4 or 8)" % size)
        self.wstring()  # the matrix name, unused
        self.int32()  # format
        rows, cols = self.size_t(), self.size_t()
        values = np.frombuffer(self._take(rows * cols * size), dtype="<f4" if size == 4 else "<f8")
        self.marker("EMAT")
        # column-major (rows x cols): as a numpy array of shape (cols, rows)
        return values.reshape(cols, rows).astype(dtype)
