"""HTKFeatureDeserializer (features listed in SCP files) and HTKMLFDeserializer (MLF labels).

An SCP line is ``path``, ``key=path`` or ``key=path[first,last]`` (inclusive frame range); the sequence key
is the key (or path) up to its last '.', folders kept, as in CNTK.  HTK feature files are big-endian: a 12-byte header
(frames int32, sample period int32, bytes per frame int16, parameter kind int16) and float32 frames.
With a context (left, right), each frame is concatenated with its neighbours (edges repeated).
MLF entries ``"key.lab"`` (or ``"*/key.lab"``; the key is the quoted name without a leading ``*/`` and up to its
last '.') list ``start end label`` lines (times in 100 ns, 10 ms frames) up to ".".
Binary MLF files (HTKMLFBinaryDeserializer) are parsed by ``htk_mlf_binary``.
"""
import re
import sys

import numpy as np
import scipy.sparse as sp

from ..core.native_errors import MissingFileError, native_entry_point
from ._deserializer import Chunk, Deserializer
from ._sequences import SequenceData
from .htk_mlf_binary import read_binary_mlf
from .streams import stream_dim

UTTERANCES_PER_CHUNK = 64      # label (MLF) chunks; CNTK cuts those by bytes, and only the primary's chunks matter
CHUNK_FRAMES = 15 * 60 * 100   # CNTK's HTK feature chunks: 15 minutes of 10 ms frames
_COMPRESSED = 0o2000
_FRAME_100NS = 100000
_PHONE_BOUNDARY = 2.0  # CNTK's value for the first frame of a phone in phoneBoundaries mode
_SCP_LINE = re.compile(r'^(?:(?P<key>[^=]+)=)?(?P<path>.*?)(?:\[(?P<first>\d+),(?P<last>\d+)\])?$')


def _without_extension(name):
    """CNTK's sequence key of an SCP logical path or MLF entry name: everything before its last '.' (folders
    kept, so that SCP and MLF keys match when both name the same path)."""
    dot = name.rfind('.')
    return name if dot < 0 else name[:dot]


def _read_scp(scp):
    entries = []
    for scp_file in ([scp] if isinstance(scp, str) else scp):
        with open(scp_file) as f:
            for number, line in enumerate(f):
                line = line.strip()
                if not line:
                    continue
                m = _SCP_LINE.match(line)
                path = m.group('path')     # a relative path is the working directory's, as CNTK reads it
                key = _without_extension(m.group('key') or m.group('path'))
                rng = (int(m.group('first')), int(m.group('last'))) if m.group('first') else None
                entries.append((key, path, rng, '%s:%d' % (scp_file, number + 1)))
    return entries


def _open_features(path):
    """An HTK feature file opened for reading; one that cannot be opened is CNTK 2.7's RuntimeError (also an
    IOError here), with the path as the SCP file gives it."""
    try:
        return open(path, 'rb')
    except OSError as e:
        raise MissingFileError("error opening file '%s': %s" % (path, e.strerror or e))


def _htk_header(path):
    """(frames, sample period in 100 ns, bytes per frame, parameter kind) of an HTK feature file."""
    with _open_features(path) as f:
        head = f.read(12)
    if len(head) < 12:
        raise IOError("HTK feature file '%s' is truncated: %d bytes, the header alone has 12" % (path, len(head)))
    frames, period, frame_bytes, kind = np.frombuffer(head, dtype='>i4,>i4,>i2,>i2')[0]
    return int(frames), int(period), int(frame_bytes), int(kind)


_BASE_KINDS = {6: 'MFCC', 7: 'FBANK', 9: 'USER', 11: 'PLP', 12: 'USER'}
_QUALIFIERS = ((0o100, '_E'), (0o400, '_D'), (0o200, '_N'), (0o1000, '_A'), (0o100000, '_T'), (0o4000, '_Z'),
               (0o20000, '_0'))


def _kind_name(kind):
    """CNTK's name of an HTK parameter kind: the base kind, then its qualifiers in CNTK's order."""
    name = _BASE_KINDS.get(kind & 0o77, 'KIND%d' % (kind & 0o77))
    return name + ''.join(q for bit, q in _QUALIFIERS if kind & bit)


def _chunk_starts(frames):
    """First utterance of each chunk as CNTK's HTK deserializer groups them: utterances in SCP order, a new
    chunk once the current one holds more than CHUNK_FRAMES frames."""
    starts, total = [], 0
    for i, n in enumerate(frames):
        if not starts or total > CHUNK_FRAMES:
            starts.append(i)
            total = 0
        total += n
    return starts


def read_htk(path, expected_dim=None):
    """Frames (n, dim) float32 of an HTK feature file."""
    with _open_features(path) as f:
        data = f.read()
    if len(data) < 12:
        raise IOError("HTK feature file '%s' is truncated: %d bytes, the header alone has 12" % (path, len(data)))
    frames, _, frame_bytes, kind = np.frombuffer(data[:12], dtype='>i4,>i4,>i2,>i2')[0]
    if kind & _COMPRESSED:
        raise IOError("HTK feature file '%s' is compressed, which is not supported" % path)
    if frame_bytes % 4:
        raise IOError("HTK feature file '%s': %d bytes per frame is not a whole number of float32 values"
                      % (path, frame_bytes))
    expected = 12 + int(frames) * int(frame_bytes)
    if len(data) < expected:
        raise IOError("HTK feature file '%s' is truncated: %d frames of %d bytes need %d bytes, found %d"
                      % (path, frames, frame_bytes, expected, len(data)))
    dim = int(frame_bytes) // 4
    if expected_dim is not None and dim != expected_dim:
        raise ValueError("HTK feature file '%s' has %d values per frame, the stream expects %d"
                         % (path, dim, expected_dim))
    return np.frombuffer(data, '>f4', int(frames) * dim, 12).astype(np.float32).reshape(int(frames), dim)


def _with_context(frames, left, right):
    if not left and not right:
        return frames
    n = frames.shape[0]
    idx = np.clip(np.arange(n)[:, None] + np.arange(-left, right + 1)[None, :], 0, n - 1)
    return frames[idx].reshape(n, -1)


class _HTKFeatures(Deserializer):
    kind = 'HTKFeatureDeserializer'
    frames_in_frame_mode = True

    def __init__(self, streams):
        super(_HTKFeatures, self).__init__()
        self._streams, self._config_of, self._streams_config, keys = {}, {}, {}, None
        for name, s in streams.items():
            if s.get('stream_alias') is not None:
                raise ValueError('HTKFeatureDeserializer does not support stream names')
            if 'scp' not in s:
                raise ValueError('No scp files specified for HTKFeatureDeserializer')
            dim = stream_dim(s, name, 'HTKFeatureDeserializer', 'new_HTKFeatureConfiguration')
            left, right = s.get('context', (0, 0))
            entries = _read_scp(s['scp'])
            these = [e[0] for e in entries]
            if keys is not None and these != keys:
                raise ValueError("HTKFeatureDeserializer: the scp files of stream '%s' list other utterances "
                                 "than the first stream's" % name)
            keys = these
            self._config_of[name] = (entries, dim, left, right, bool(s.get('broadcast', False)))
            self._streams_config[name] = s['scp']
            self._streams[name] = dict(shape=(dim * (1 + left + right),), is_sparse=False,
                                       defines_mb_size=bool(s.get('defines_mb_size', False)))
        if keys is None:
            raise ValueError('no feature streams found')
        self._config.update(type=self.kind, input={
            name: dict(dim=self._config_of[name][1], contextWindow=list(self._config_of[name][2:4]),
                       scpFile=self._streams_config[name], expandToUtterance=self._config_of[name][4],
                       definesMBSize=self._streams[name]['defines_mb_size'],
                       maxSequenceLength=streams[name].get('max_sequence_length', 65535))
            for name in self._streams})
        self._keys = np.empty(len(keys), dtype=object)
        self._keys[:] = keys
        entries = next(iter(self._config_of.values()))[0]
        self._frames = [self._utterance_frames(e) for e in entries]
        self._bounds = _chunk_starts(self._frames) + [len(entries)]

    @staticmethod
    def _utterance_frames(entry):
        key, path, rng, where = entry
        if rng is not None:
            return rng[1] - rng[0] + 1
        try:
            return _htk_header(path)[0]
        except OSError:
            return 0    # reported when the chunk is read

    def report_opening(self):
        """CNTK's stderr lines when a MinibatchSource opens the SCP files (one set per stream)."""
        n, chunks = len(self._keys), len(self._bounds) - 1
        frames = sum(self._frames)
        for name, (entries, dim, left, right, broadcast) in self._config_of.items():
            scp = self._streams_config[name]
            sys.stderr.write("Reading script file %s ... %d entries\n"
                             % (scp if isinstance(scp, str) else ' '.join(scp), n))
            sys.stderr.write("HTKDeserializer: selected '%d' utterances grouped into '%d' chunks, average chunk "
                             "size: %.1f utterances, %.1f frames (for I/O: %.1f utterances, %.1f frames)\n"
                             % (n, chunks, n / chunks, frames / chunks, n / chunks, frames / chunks))
            if entries:
                # CNTK reads the first utterance's header here: a file it cannot open fails the MinibatchSource
                _, period, frame_bytes, kind = _htk_header(entries[0][1])
                sys.stderr.write("HTKDeserializer: determined feature kind as '%d'-dimensional '%s' with frame "
                                 "shift %.1f ms\n" % (frame_bytes // 4, _kind_name(kind), period / 1e4))
        sys.stderr.flush()

    def num_chunks(self):
        return len(self._bounds) - 1

    def chunk(self, chunk_id, seed):
        lo, hi = self._bounds[chunk_id], self._bounds[chunk_id + 1]
        streams = {}
        for name, (entries, dim, left, right, broadcast) in self._config_of.items():
            seqs = []
            for key, path, rng, where in entries[lo:hi]:
                frames = read_htk(path, dim)
                if rng is not None:
                    if rng[1] >= frames.shape[0]:
                        raise IOError("%s: frame range [%d,%d] of '%s' exceeds its %d frames"
                                      % (where, rng[0], rng[1], path, frames.shape[0]))
                    frames = frames[rng[0]:rng[1] + 1]
                seqs.append(frames[:1] if broadcast else _with_context(frames, left, right))
            streams[name] = SequenceData.from_sequences(seqs)
        return Chunk(self._keys[lo:hi], streams)


def _frame_range(start, end, path, number):
    """CNTK's reading of an MLF entry's 'start end': times in 100 ns units (rounded to the nearest 10 ms frame)
    when they lie at least a frame apart, else frame numbers."""
    try:
        ts, te = float(start), float(end)
    except ValueError:
        raise ValueError("%s:%d: cannot parse the frame range '%s %s'" % (path, number, start, end))
    if te - ts >= _FRAME_100NS - 1:
        return int(ts / _FRAME_100NS + 0.5), int(te / _FRAME_100NS + 0.5)
    return int(ts), int(te)


def _state_count(path):
    """The number of states CNTK 2.7 reports for a state list: its non-empty lines split at CR and LF, counting
    the C string terminator CNTK appends as one more after a final newline."""
    with open(path, 'rb') as f:
        data = f.read() + b'\0'
    return sum(1 for piece in re.split(rb'[\r\n]', data) if piece)


def _read_label_mapping(path):
    with open(path) as f:
        labels = [line.strip() for line in f if line.strip()]
    return {label: i for i, label in enumerate(labels)}


def _read_mlf(path, mapping, boundaries=None):
    """{utterance key: label index per frame}; with ``boundaries`` (a dict), also {key: whether each frame is
    the first of its MLF entry} into it."""
    utterances = {}
    with open(path) as f:
        lines = f.read().splitlines()
    if not lines or lines[0].strip() != '#!MLF!#':
        raise ValueError("%s: not a master label file (first line must be #!MLF!#)" % path)
    key, frames, number = None, None, 1
    for number, line in enumerate(lines[1:], start=2):
        line = line.strip()
        if not line:
            continue
        if key is None:
            name = line.strip('"')
            key = _without_extension(name[2:] if name.startswith('*/') and len(name) > 2 else name)
            frames = []
        elif line == '.':
            utterances[key] = np.concatenate(frames) if frames else np.zeros(0, np.int64)
            if boundaries is not None:
                first = np.zeros(len(utterances[key]), bool)
                first[np.cumsum([0] + [len(f) for f in frames[:-1]])[[len(f) > 0 for f in frames]]] = True
                boundaries[key] = first
            key = None
        else:
            parts = line.split()
            if len(parts) < 3:
                raise ValueError("%s:%d: expected 'start end label', got %r" % (path, number, line))
            start, end = _frame_range(parts[0], parts[1], path, number)
            if parts[2] not in mapping:
                raise ValueError("%s:%d: label '%s' is not in the label mapping file" % (path, number, parts[2]))
            frames.append(np.full(end - start, mapping[parts[2]], np.int64))
    if key is not None:
        raise ValueError("%s:%d: entry for '%s' is not terminated by '.'" % (path, number, key))
    return utterances


class _HTKMLF(Deserializer):
    kind = 'HTKMLFDeserializer'
    frames_in_frame_mode = True

    def __init__(self, label_mapping_file, streams, phone_boundaries):
        super(_HTKMLF, self).__init__()
        if len(streams) != 1:
            raise ValueError('HTKMLFDeserializer only accepts a single stream')
        (name, s), = streams.items()
        if s.get('stream_alias') is not None:
            raise ValueError('HTKMLFDeserializer does not support stream names')
        if 'mlf' not in s:
            raise ValueError('No master label files specified for HTKMLFDeserializer')
        dim = stream_dim(s, name, 'HTKMLFDeserializer', 'htk_mlf_deserializer')
        mapping = _read_label_mapping(label_mapping_file)
        if len(mapping) > dim:
            raise ValueError("HTKMLFDeserializer: %d labels in '%s' do not fit the stream dimension %d"
                             % (len(mapping), label_mapping_file, dim))
        # phoneBoundaries (CTC training): the first frame of each MLF entry has the value 2 instead of 1
        self._boundaries = {} if phone_boundaries else None
        self._set_labels(name, dim, s, lambda mlf: _read_mlf(mlf, mapping, self._boundaries))
        self._state_list = label_mapping_file
        self._config.update(type=self.kind, input={name: dict(
            dim=dim, labelMappingFile=label_mapping_file, mlfFile=s['mlf'],
            phoneBoundaries='true' if phone_boundaries else 'false')})

    def report_opening(self):
        """CNTK's stderr lines when a MinibatchSource opens the state list and the MLF files."""
        if getattr(self, '_state_list', None) is not None:
            sys.stderr.write("Total (%d) state names in state list '%s'\n"
                             % (_state_count(self._state_list), self._state_list))
        sys.stderr.write("MLF Deserializer: '%d' utterances with '%d' frames\n"
                         % (len(self._labels), sum(len(v) for v in self._labels.values())))
        sys.stderr.flush()

    def _set_labels(self, name, dim, stream, read):
        """The labels of every utterance of the stream's ``mlf`` files (one or a list), each read by ``read``."""
        self._labels = {}
        for mlf in ([stream['mlf']] if isinstance(stream['mlf'], str) else stream['mlf']):
            self._labels.update(read(mlf))
        self._name, self._dim = name, dim
        self._streams = {name: dict(shape=(dim,), is_sparse=True,
                                    defines_mb_size=bool(stream.get('defines_mb_size', False)))}
        self._keys = np.empty(len(self._labels), dtype=object)
        self._keys[:] = sorted(self._labels)

    def num_chunks(self):
        return (len(self._keys) + UTTERANCES_PER_CHUNK - 1) // UTTERANCES_PER_CHUNK

    def _sequences(self, keys):
        seqs = []
        for key in keys:
            idx = self._labels[key]
            values = np.ones(len(idx), np.float32)
            if getattr(self, "_boundaries", None) is not None:
                values[self._boundaries[key]] = _PHONE_BOUNDARY
            seqs.append(sp.csr_matrix((values, idx, np.arange(len(idx) + 1)),
                                      shape=(len(idx), self._dim)))
        return {self._name: SequenceData.from_sequences(seqs)}

    def chunk(self, chunk_id, seed):
        keys = self._keys[chunk_id * UTTERANCES_PER_CHUNK:(chunk_id + 1) * UTTERANCES_PER_CHUNK]
        return Chunk(keys, self._sequences(keys))

    def sequences_for_keys(self, keys, seed):
        found = np.array([k in self._labels for k in keys.tolist()], dtype=bool)
        return (self._sequences(keys[found].tolist()) if found.any() else None), found


@native_entry_point  # CNTK configures its readers natively: errors carry the call stack
def HTKFeatureDeserializer(streams):
    """Reads HTK feature files listed in the ``scp`` of each stream (``shape`` = values per frame,
    ``context`` = (left, right) frames to append)."""
    return _HTKFeatures(streams)


@native_entry_point  # CNTK configures its readers natively: errors carry the call stack
def HTKMLFDeserializer(label_mapping_file, streams, phoneBoundaries=False):
    """Reads frame labels from HTK master label files (``mlf`` of the single stream); the label
    mapping file lists one label per line, its line number being the class id."""
    return _HTKMLF(label_mapping_file, streams, phoneBoundaries)


def _single_label_stream(streams, who):
    if len(streams) != 1:
        raise ValueError('%s only accepts a single stream, got %d' % (who, len(streams)))
    (name, s), = streams.items()
    if s.get('stream_alias') is not None:
        raise ValueError('%s does not support stream names (field=%r)' % (who, s['stream_alias']))
    return name, s


class _HTKMLFBinary(_HTKMLF):
    """Frame labels from binary MLF files; shares the text reader's chunking and key lookup."""

    kind = 'HTKMLFBinaryDeserializer'

    def __init__(self, name, stream):
        Deserializer.__init__(self)      # not _HTKMLF's: that one reads text MLFs through a label mapping file
        dim = stream_dim(stream, name, self.kind, 'htk_mlf_binary_deserializer', overloaded=False)
        self._set_labels(name, dim, stream, lambda mlf: read_binary_mlf(mlf, dim))


def HTKMLFBinaryDeserializer(streams):
    """Reads frame labels from CNTK's binary master label files (``mlf`` of the single stream,
    ``shape`` = number of classes); see :mod:`cntk_compat.io.htk_mlf_binary` for the format."""
    name, s = _single_label_stream(streams, 'HTKMLFBinaryDeserializer')
    if 'mlf' not in s:
        raise ValueError('No master label files specified for HTKMLFBinaryDeserializer')
    return _HTKMLFBinary(name, s)


def LatticeDeserializer(lattice_index_file, streams):
    """Lattices for sequence training: not supported by this implementation."""
    name, _ = _single_label_stream(streams, 'LatticeDeserializer')
    raise NotImplementedError(
        "LatticeDeserializer (lattice index '%s', stream '%s') is not supported: it yields serialized "
        "lattices whose only consumer, lattice_sequence_with_softmax, is not implemented"
        % (lattice_index_file, name))
