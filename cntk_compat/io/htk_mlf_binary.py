"""Reader of CNTK's binary master label files (the input of ``HTKMLFBinaryDeserializer``).

A binary MLF is a compact, run-length encoded frame alignment.  All integers are little endian
and unsigned unless noted:

    header      3 bytes ``MLF``, then the format version as int16 (1 or 2)
    utterance   (repeated up to the end of the file)
        key         version 1: uint32, the key being its decimal text;
                    version 2: uint16 length (at most 256) followed by that many bytes of text
        frames      uint32, the number of frames of the utterance
        runs        uint16, the number of label runs
        run         (``runs`` times) uint16 class id, uint16 number of frames

The class id is the one-hot index of the label (the line number of the state in the state list
the file was compiled with), so every id must be below the stream dimension; the runs cover the
frames in order and add up to ``frames``.  Keys are used verbatim to join other deserializers.

CNTK does not check most of this (a truncated record or runs not adding up to the frame count read
past the record); here any violation raises an error naming the file, the utterance and what was
expected versus found.
"""
import numpy as np

MAGIC = b'MLF'
VERSIONS = (1, 2)
MAX_KEY_LENGTH = 256
_RUN = np.dtype([('label', '<u2'), ('frames', '<u2')])


class _Cursor(object):
    """Reads consecutive fields of one file, failing with the file and utterance it is in."""

    def __init__(self, data, path):
        self.data, self.path, self.pos = data, path, 0
        self.utterance = None

    def at_end(self):
        return self.pos >= len(self.data)

    def where(self):
        if self.utterance is None:
            return "binary MLF file '%s'" % self.path
        return "binary MLF file '%s', utterance '%s'" % (self.path, self.utterance)

    def take(self, dtype, count, what):
        dtype = np.dtype(dtype)
        need = dtype.itemsize * count
        left = len(self.data) - self.pos
        if left < need:
            raise IOError('%s is truncated: %d bytes needed for %s at offset %d, only %d left'
                          % (self.where(), need, what, self.pos, left))
        values = np.frombuffer(self.data, dtype, count, self.pos)
        self.pos += need
        return values


def _read_key(cursor, version):
    if version == 1:
        return str(int(cursor.take('<u4', 1, 'the utterance id')[0]))
    length = int(cursor.take('<u2', 1, 'the utterance key length')[0])
    if length > MAX_KEY_LENGTH:
        raise IOError('%s: utterance key length must be at most %d bytes, got %d at offset %d'
                      % (cursor.where(), MAX_KEY_LENGTH, length, cursor.pos - 2))
    raw = cursor.take('u1', length, 'the utterance key').tobytes()
    try:
        return raw.decode('utf-8')
    except UnicodeDecodeError:
        raise IOError('%s: utterance key %r is not UTF-8 text' % (cursor.where(), raw))


def _read_labels(cursor, dim):
    num_frames = int(cursor.take('<u4', 1, 'the frame count')[0])
    num_runs = int(cursor.take('<u2', 1, 'the run count')[0])
    runs = cursor.take(_RUN, num_runs, '%d label runs' % num_runs)
    labels, lengths = runs['label'].astype(np.int64), runs['frames'].astype(np.int64)
    bad = np.flatnonzero(labels >= dim)
    if bad.size:
        raise ValueError('%s: class id %d (run %d) must be below the stream dimension %d'
                         % (cursor.where(), labels[bad[0]], bad[0], dim))
    covered = int(lengths.sum())
    if covered != num_frames:
        raise ValueError('%s: the utterance has %d frames but its %d label runs cover %d'
                         % (cursor.where(), num_frames, num_runs, covered))
    return np.repeat(labels, lengths)


def read_binary_mlf(path, dim):
    """Per utterance key, the class id of every frame (int64 array) of one binary MLF file."""
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except OSError as e:
        raise IOError("binary MLF file '%s' cannot be read: %s" % (path, e))
    cursor = _Cursor(data, path)
    magic = cursor.take('u1', len(MAGIC), 'the magic').tobytes()
    if magic != MAGIC:
        raise IOError('%s is not a binary MLF: expected the magic %r, got %r' % (cursor.where(), MAGIC, magic))
    version = int(cursor.take('<i2', 1, 'the format version')[0])
    if version not in VERSIONS:
        raise IOError('%s: format version must be one of %s, got %d' % (cursor.where(), VERSIONS, version))
    utterances = {}
    while not cursor.at_end():
        cursor.utterance = '#%d at offset %d' % (len(utterances), cursor.pos)
        key = _read_key(cursor, version)
        cursor.utterance = key
        utterances[key] = _read_labels(cursor, dim)
    return utterances
