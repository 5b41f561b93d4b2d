"""The fast path of CTF parsing, for blocks of plain lines (the common case).

A plain block has only configured input names, no comments, at most one sequence id per line and
nothing but values in the fields.  Its structure (lines, fields, number of values per field) is found
with a handful of numpy passes over the bytes; the numbers themselves are converted by the C++ text
parser scipy ships for Matrix Market files (``scipy.io.mmread``, several times faster than anything
numpy offers): the block is rewritten as a one-column Matrix Market array, one value per line, by
blanking names and ids and turning separators into newlines.

``parse_plain_block`` returns None whenever the block is not plain or anything does not add up; the
caller then uses the general parser, which also produces the precise error messages.
"""
import io

import numpy as np
import scipy.io
import scipy.sparse as sp

from ._numparse import parse_uints

_NL, _PIPE, _HASH, _COLON, _SPACE = 10, 124, 35, 58, 32
_TO_LINES = bytes.maketrans(b' \t\r\x0b\x0c|:', b'\n' * 7)
_WORD, _COLON_FLAG, _PIPE_FLAG, _NEWLINE = 1, 2, 4, 8
_EVENTS = bytearray(256)
_EVENTS[_COLON], _EVENTS[_PIPE], _EVENTS[_NL] = _COLON_FLAG, _PIPE_FLAG, _NEWLINE
_EVENTS = bytes(_EVENTS)
# character classes of the value text (bit flags); separators (blanks, '|', ':') are 0
_DIGIT, _DOT, _EXP, _SIGN, _TOKEN = 1, 2, 4, 8, 16
_VALUE_BYTES = bytes(range(_SPACE + 1)) + b'|:0123456789.eE+-'
_CLASSES = np.zeros(256, np.uint8)
_CLASSES[ord('0'):ord('9') + 1] = _DIGIT
_CLASSES[ord('.')] = _DOT
_CLASSES[[ord('e'), ord('E')]] = _EXP
_CLASSES[[ord('+'), ord('-')]] = _SIGN
_CLASSES = _CLASSES.tobytes()


def _has_cpp_reader():
    try:
        from scipy.io import _fast_matrix_market  # noqa: F401  (scipy >= 1.12)
    except ImportError:
        return False
    return True


AVAILABLE = _has_cpp_reader()


class PlainBlock(object):
    __slots__ = ('lines', 'has_id', 'ids', 'samples')


def _parse_all_numbers(text, count):
    header = b'%%%%MatrixMarket matrix array real general\n%d 1\n' % count
    try:
        values = scipy.io.mmread(io.BytesIO(header + text))
    except (ValueError, RuntimeError, OverflowError):
        return None
    return np.asarray(values).reshape(-1)


def _ids(b, line_start, first_pipe):
    """(has_id, uint64 ids) of lines from the text before their first '|'; None if not one integer."""
    width = int((first_pipe - line_start).max()) if len(line_start) else 0
    n = len(line_start)
    if width == 0:
        return np.zeros(n, bool), np.zeros(n, np.uint64)
    cols = np.arange(width)
    inside = cols[None, :] < (first_pipe - line_start)[:, None]
    text = b[np.minimum(line_start[:, None] + cols[None, :], len(b) - 1)]
    solid = inside & (text > _SPACE)
    has_id = solid.any(axis=1)
    first = np.argmax(solid, axis=1)
    last = width - np.argmax(solid[:, ::-1], axis=1)
    # a single token: no blank between its first and last character
    between = (cols[None, :] >= first[:, None]) & (cols[None, :] < last[:, None])
    if (between & ~solid)[has_id].any():
        return None
    starts, ends = line_start + first, line_start + last
    ids = np.zeros(n, np.uint64)
    if has_id.any():
        values, bad = parse_uints(b, starts[has_id], ends[has_id])
        if len(bad):
            return None
        ids[has_id] = values
    return has_id, ids


def parse_plain_block(b, line0, streams, aliases, dtype):
    """Parse the block ``b`` (uint8 array of whole lines, ending in a newline) or return None.

    ``streams`` is [(name, alias, dim, is_sparse)], ``aliases`` their names as uint8 arrays.
    """
    n = len(b)
    # one pass classifies every byte of interest (bit flags), the arrays below index the few found
    separator = b <= _SPACE
    events = np.frombuffer(bytearray(b).translate(_EVENTS), np.uint8)   # translate: a fast table lookup
    events |= (~separator).view(np.uint8)
    events[1:] &= (separator[:-1].view(np.uint8) | np.uint8(~_WORD & 0xFF))   # keep bit 1 at word starts
    where = np.flatnonzero(events)
    kinds = events[where]
    nl, pipes, colons = (where[(kinds & flag) != 0] for flag in (_NEWLINE, _PIPE_FLAG, _COLON_FLAG))
    word_starts = where[(kinds & _WORD) != 0]
    if len(pipes) == 0 or (b[pipes + 1] == _HASH).any():
        return None
    stream_of = np.full(len(pipes), -1, np.int64)
    name_len = np.zeros(len(pipes), np.int64)
    for s, alias in enumerate(aliases):
        match = b[np.minimum(pipes + 1 + len(alias), n - 1)] <= _SPACE
        for k, ch in enumerate(alias):
            match &= b[np.minimum(pipes + 1 + k, n - 1)] == ch
        stream_of[match] = s
        name_len[match] = len(alias)
    if (stream_of < 0).any():
        return None
    pipe_line = np.searchsorted(nl, pipes)
    first_of_line = np.ones(len(pipes), bool)
    first_of_line[1:] = pipe_line[1:] != pipe_line[:-1]
    used = pipe_line[first_of_line]
    line_start = np.concatenate([[0], nl[:-1] + 1])
    # lines without any field must be blank
    unused = np.ones(len(nl), bool)
    unused[used] = False
    for line in np.flatnonzero(unused & (nl > line_start)):
        if (b[line_start[line]:nl[line]] > _SPACE).any():
            return None
    id_info = _ids(b, line_start[used], pipes[first_of_line])
    if id_info is None:
        return None
    has_id, ids = id_info

    sparse_field = np.array([s[3] for s in streams], bool)[stream_of]
    # words: maximal runs of non-blank bytes; a sparse word is one 'index:value' pair (two numbers)
    if colons.size and not ((b[colons - 1] > _SPACE) & (b[colons + 1] > _SPACE)).all():
        return None
    value_start = pipes + 1 + name_len
    region_end = np.minimum(np.concatenate([pipes[1:], [n]]), nl[pipe_line])
    words = np.searchsorted(word_starts, region_end) - np.searchsorted(word_starts, value_start)
    colon_count = np.searchsorted(colons, region_end) - np.searchsorted(colons, value_start)
    # each colon right after its own word start: no word holds two, so with as many colons as words in a
    # sparse field every word holds exactly one
    if colons.size and not (colon_count.sum() == colons.size and (colon_count == words)[sparse_field].all()
                            and not colon_count[~sparse_field].any()
                            and _one_colon_per_word(kinds)):
        return None
    if not colons.size and words[sparse_field].any():
        return None
    counts = np.where(sparse_field, 2 * words, words)

    text = bytearray(b)
    writable = np.frombuffer(text, np.uint8)
    for k in range(int(name_len.max()) + 1):
        writable[pipes[name_len >= k] + k] = _SPACE
    first_pipe = pipes[first_of_line]
    for k in range(int((first_pipe - line_start[used]).max(initial=0))):
        at = line_start[used] + k
        writable[at[at < first_pipe]] = _SPACE
    if not _numbers_well_formed(text, np.concatenate([word_starts, colons + 1])):
        return None
    del writable
    values = _parse_all_numbers(text.translate(_TO_LINES), int(counts.sum()))
    if values is None or len(values) != int(counts.sum()):
        return None

    offsets = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    block = PlainBlock()
    block.lines = used + line0
    block.has_id, block.ids = has_id, ids
    block.samples = []
    for s, (name, alias, dim, is_sparse) in enumerate(streams):
        fields = np.flatnonzero(stream_of == s)
        lines = pipe_line[fields] + line0
        if is_sparse:
            rows = _sparse_rows(values, offsets[fields], counts[fields], dim, dtype)
        else:
            if (counts[fields] != dim).any():
                return None
            rows = values[offsets[fields][:, None] + np.arange(dim)].astype(dtype)
        if rows is None:
            return None
        block.samples.append((rows, lines))
    return block


def _numbers_well_formed(text, token_starts):
    """Whether every token of the bytearray ``text`` (values only: names and ids blanked) is a decimal
    number: digits with at most one '.', then at most one exponent, a sign only in front of the mantissa
    or the exponent.  (The C++ parser would read the valid beginning of '1.5abc' or '1.2.3' and ignore
    the rest.)"""
    if text.translate(None, _VALUE_BYTES):      # any byte that cannot be part of a number or a separator
        return False
    cls = np.frombuffer(text.translate(_CLASSES), np.uint8)
    cls[token_starts] |= _TOKEN
    where = np.flatnonzero(cls & (_DOT | _EXP | _SIGN | _TOKEN))
    kinds, before, after = cls[where], cls[where - 1], cls[np.minimum(where + 1, len(cls) - 1)]
    dot, exp, sign = (kinds & _DOT) != 0, (kinds & _EXP) != 0, (kinds & _SIGN) != 0
    if not (((before | after)[dot] & _DIGIT) != 0).all():
        return False
    after_sign = cls[np.minimum(where[exp] + 2, len(cls) - 1)]
    if not (((before[exp] & (_DIGIT | _DOT)) != 0)
            & (((after[exp] & _DIGIT) != 0) | (((after[exp] & _SIGN) != 0) & ((after_sign & _DIGIT) != 0)))).all():
        return False
    if not ((((before[sign] & ~np.uint8(_TOKEN)) == 0) | ((before[sign] & _EXP) != 0))
            & ((after[sign] & (_DIGIT | _DOT)) != 0)).all():
        return False
    # in text order, a '.' or an exponent follows its token start with no '.' or exponent in between
    marks = kinds[(kinds & (_DOT | _EXP | _TOKEN)) != 0]
    inner = (marks & _TOKEN) == 0
    previous = np.concatenate([[np.uint8(_TOKEN)], marks[:-1]])
    return bool(not ((previous & np.where((marks & _DOT) != 0, _DOT | _EXP, _EXP).astype(np.uint8))[inner]).any())


def _one_colon_per_word(kinds):
    """Whether, among word starts and colons in text order, every colon directly follows a word start
    (a colon is never a word start itself: blanks around colons were rejected before)."""
    marks = kinds[(kinds & (_WORD | _COLON_FLAG)) != 0]
    colon = (marks & _COLON_FLAG) != 0
    return bool(not colon[0] and ((marks[:-1][colon[1:]] & _WORD) != 0).all())


def _sparse_rows(values, starts, counts, dim, dtype):
    if (counts % 2).any():
        return None
    pairs = counts // 2
    indptr = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(pairs, out=indptr[1:])
    first_token = np.repeat(starts - 2 * indptr[:-1], pairs) + 2 * np.arange(int(indptr[-1]))
    index, value = values[first_token], values[first_token + 1]
    if ((index != np.floor(index)) | (index < 0) | (index >= dim)).any():
        return None
    return sp.csr_matrix((value.astype(dtype), index.astype(np.int64), indptr), shape=(len(counts), dim))
