"""Parsing CNTK Text Format (CTF) text into sequences, vectorized with numpy.

A line is ``[Sequence_Id] (|input v v v | input i:v i:v | # comment)+``.  Consecutive lines with the
same sequence id form one sequence; a line without an id is a sequence of its own, keyed by its
line number.  Sequence ids are unsigned 64-bit integers, read exactly.  Text is processed in blocks of
whole lines: plain blocks go through the fast path (``_ctf_fast``); the others (comments, unknown
inputs, malformed text) through the general parser below, in blocks small enough for its numpy
temporaries to stay cheap.  Sequences are assembled over all blocks of a chunk.
"""
import concurrent.futures
import os
import warnings

import numpy as np
import scipy.sparse as sp

from . import _ctf_fast
from ._deserializer import Chunk
from ._numparse import parse_numbers, parse_uints, token_bounds
from ._sequences import SequenceData

_NL, _PIPE, _HASH, _COLON = 10, 124, 35, 58
BLOCK_BYTES = 1 << 18          # general parser: small blocks keep its numpy temporaries cheap
FAST_BLOCK_BYTES = 1 << 21     # fast path: blocks parsed in parallel, each large enough to amortize a call


class CTFFormatError(ValueError):
    """Malformed CTF text; ``line`` is the 0-based number of the offending line (None: not one line)."""

    def __init__(self, message, line=None):
        super(CTFFormatError, self).__init__(message)
        self.line = line


def _regions_mask(n, starts, ends):
    """Boolean mask of length n, True inside the disjoint, sorted ranges [starts, ends)."""
    d = np.zeros(n + 1, np.int8)
    d[starts] += 1
    d[ends] -= 1
    return np.cumsum(d[:-1], dtype=np.int8) > 0


_POOL = []


def _fast_pool():
    """Threads shared by all parsers for the fast path's blocks (numpy and scipy release the GIL)."""
    if not _POOL:
        _POOL.append(concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1,
                                                           thread_name_prefix='cntk-ctf'))
    return _POOL[0]


def _line_blocks(data, size):
    """``data`` cut into pieces of about ``size`` bytes at line ends, each ending with a newline."""
    pos, total = 0, len(data)
    while pos < total:
        end = total if total - pos <= size else data.rfind(b'\n', pos, pos + size) + 1
        if end <= pos:   # a single line longer than a block
            end = data.find(b'\n', pos + size)
            end = total if end < 0 else end + 1
        piece = data[pos:end]
        yield piece if piece.endswith(b'\n') else piece + b'\n'
        pos = end


def _blank_line(b, line):
    """A copy of the block ``b`` whose line number ``line`` (0-based in the block) is blanked."""
    nl = np.flatnonzero(b == _NL)
    start = nl[line - 1] + 1 if line > 0 else 0
    blanked = b.copy()
    blanked[start:nl[line]] = 32
    return blanked


class _Block(object):
    """What one block of lines contributes: line numbers/ids and, per stream, its samples."""
    __slots__ = ('lines', 'has_id', 'ids', 'samples')


class CTFParser(object):
    """Parses CTF text for a fixed set of streams: [(name, alias, dim, is_sparse)]."""

    def __init__(self, filename, streams, dtype=np.float32):
        self.filename = filename
        self.streams = streams
        self.dtype = np.dtype(dtype)
        self._aliases = [np.frombuffer(s[1].encode('utf-8'), np.uint8) for s in streams]
        self._warned = set()
        self.max_errors = 0
        self._skipped_lines = set()

    def _error(self, line, message):
        return CTFFormatError("%s:%d: %s" % (self.filename, line + 1, message), line)

    def parse_chunk(self, data, first_line):
        """Parse ``data`` (whole lines; line numbers start at ``first_line``, 0-based) into a Chunk."""
        if not _ctf_fast.AVAILABLE:
            return self._assemble(self._parse_general(data, first_line))
        pieces = list(_line_blocks(data, FAST_BLOCK_BYTES))
        first_lines = np.cumsum([first_line] + [piece.count(b'\n') for piece in pieces[:-1]]).tolist()
        fast = _fast_pool().map(lambda piece, line: _ctf_fast.parse_plain_block(
            np.frombuffer(piece, np.uint8), line, self.streams, self._aliases, self.dtype), pieces, first_lines)
        blocks = []
        for piece, line, block in zip(pieces, first_lines, list(fast)):
            blocks.extend([block] if block is not None else self._parse_general(piece, line))
        return self._assemble(blocks)

    def _parse_general(self, data, first_line):
        blocks, line = [], first_line
        for piece in _line_blocks(data, BLOCK_BYTES):
            b = np.frombuffer(piece, np.uint8)
            blocks.append(self._parse_skipping_bad_lines(b, line))
            line += int(np.count_nonzero(b == _NL))
        return blocks

    def _parse_skipping_bad_lines(self, b, line0):
        """Parse a block; up to ``max_errors`` distinct malformed lines (over the whole file) are skipped
        with a warning instead of raising."""
        while True:
            try:
                return self._parse_block(b, line0)
            except CTFFormatError as error:
                line = error.line
                if line is None or (line not in self._skipped_lines
                                    and len(self._skipped_lines) >= self.max_errors):
                    raise
                if line not in self._skipped_lines:
                    self._skipped_lines.add(line)
                    warnings.warn('%s; the line is skipped (%d of at most %d errors ignored)'
                                  % (error, len(self._skipped_lines), self.max_errors))
                b = _blank_line(b, line - line0)

    # ---------------------------------------------------------------- one block of lines
    def _parse_block(self, b, line0):
        n = len(b)
        nl = np.flatnonzero(b == _NL)
        line_start = np.concatenate([[0], nl[:-1] + 1])
        pipes = np.flatnonzero(b == _PIPE)
        pipe_line = np.searchsorted(nl, pipes)
        next_pipe = np.concatenate([pipes[1:], [n]])
        region_end = np.minimum(next_pipe, nl[pipe_line])
        is_field = b[pipes + 1] != _HASH
        fp, fend, fline = pipes[is_field], region_end[is_field], pipe_line[is_field]

        ws = np.flatnonzero(b <= 32)
        aend = np.minimum(ws[np.searchsorted(ws, fp)], fend)
        alen = aend - fp - 1
        stream_of = np.full(len(fp), -1, np.int64)
        for s, alias in enumerate(self._aliases):
            match = alen == len(alias)
            for k, ch in enumerate(alias):
                match &= b[np.minimum(fp + 1 + k, n - 1)] == ch
            stream_of[match] = s
        unknown = np.flatnonzero(stream_of < 0)
        if len(unknown):
            self._warn_unknown(b, fp, aend, fline, unknown, line0)

        # lines: ignore blank and comment-only lines; text before the first '|' is the sequence id
        has_field = np.zeros(len(nl), bool)
        has_field[fline] = True
        nonblank = np.diff(np.concatenate([[0], np.cumsum(b > 32)[nl]])) > 0
        no_pipe = np.ones(len(nl), bool)
        no_pipe[pipe_line] = False
        bad_lines = np.flatnonzero(nonblank & no_pipe)
        if len(bad_lines):
            raise self._error(line0 + int(bad_lines[0]),
                              "malformed line: expected '|<input name>' followed by values, got %r"
                              % self._line_text(b, line_start, nl, bad_lines[0]))
        first_pipe = np.full(len(nl), -1, np.int64)
        first_of_line = np.concatenate([[True], pipe_line[1:] != pipe_line[:-1]]) if len(pipes) else []
        first_pipe[pipe_line[first_of_line]] = pipes[first_of_line]
        used = np.flatnonzero(has_field)
        ids, has_id = self._parse_ids(b, line_start[used], first_pipe[used], used, line0)

        known = np.flatnonzero(stream_of >= 0)
        kstart, kend, kline, kstream = aend[known], fend[known], fline[known], stream_of[known]
        sparse_streams = np.array([s[3] for s in self.streams], bool)
        in_value = _regions_mask(n, kstart, kend)
        sep = ~in_value | (b <= 32)
        if sparse_streams.any():
            sk = sparse_streams[kstream]
            sep |= (b == _COLON) & _regions_mask(n, kstart[sk], kend[sk])
        starts, ends = token_bounds(sep)
        values, bad = parse_numbers(b, starts, ends)
        if len(bad):
            t = bad[0]
            line = int(np.searchsorted(nl, starts[t]))
            raise self._error(line0 + line, "cannot parse %r as a number (in %r)"
                              % (b[starts[t]:ends[t]].tobytes().decode('utf-8', 'replace'),
                                 self._line_text(b, line_start, nl, line)))
        tok_field = np.searchsorted(kstart, starts, side='right') - 1
        counts = np.bincount(tok_field, minlength=len(known))

        block = _Block()
        block.lines = used + line0
        block.has_id, block.ids = has_id, ids
        block.samples = []
        for s, (name, alias, dim, is_sparse) in enumerate(self.streams):
            fields = np.flatnonzero(kstream == s)
            lines = kline[fields] + line0
            toks = np.flatnonzero(kstream[tok_field] == s) if len(fields) else np.zeros(0, np.int64)
            if is_sparse:
                rows = self._sparse_rows(b, starts, ends, values, toks, counts[fields], lines, alias, dim)
            else:
                wrong = np.flatnonzero(counts[fields] != dim)
                if len(wrong):
                    f = wrong[0]
                    raise self._error(int(lines[f]), "input '%s' expects %d values per sample, found %d"
                                      % (alias, dim, counts[fields][f]))
                rows = values[toks].astype(self.dtype).reshape(len(fields), dim)
            block.samples.append((rows, lines))
        return block

    def _sparse_rows(self, b, starts, ends, values, toks, counts, lines, alias, dim):
        odd = np.flatnonzero(counts % 2)
        idx_t, val_t = toks[0::2], toks[1::2]
        if len(odd) == 0:
            broken = np.flatnonzero((b[ends[idx_t]] != _COLON) | (starts[val_t] != ends[idx_t] + 1)
                                    | (b[ends[val_t]] == _COLON))
        if len(odd) or len(broken):
            line = int(lines[odd[0]]) if len(odd) else int(lines[np.searchsorted(
                np.cumsum(counts // 2), broken[0], side='right')])
            raise self._error(line, "input '%s' is sparse: expected 'index:value' pairs" % alias)
        index = values[idx_t]
        invalid = np.flatnonzero((index != np.floor(index)) | (index < 0) | (index >= dim))
        if len(invalid):
            sample = int(np.searchsorted(np.cumsum(counts // 2), invalid[0], side='right'))
            raise self._error(int(lines[sample]), "sparse index %s of input '%s' is outside [0, %d)"
                              % (repr(float(index[invalid[0]])).rstrip('0').rstrip('.'), alias, dim))
        indptr = np.zeros(len(counts) + 1, np.int64)
        np.cumsum(counts // 2, out=indptr[1:])
        return sp.csr_matrix((values[val_t].astype(self.dtype), index.astype(np.int64), indptr),
                             shape=(len(counts), dim))

    def _parse_ids(self, b, line_start, first_pipe, used, line0):
        id_mask = _regions_mask(len(b), line_start, first_pipe)
        starts, ends = token_bounds(~id_mask | (b <= 32))
        owner = np.searchsorted(first_pipe, starts)
        ids = np.zeros(len(used), np.uint64)
        has_id = np.zeros(len(used), bool)
        if len(starts):
            dup = np.flatnonzero(owner[1:] == owner[:-1])
            values, bad = parse_uints(b, starts, ends)
            if len(dup) or len(bad):
                t = int(dup[0] + 1) if len(dup) else int(bad[0])
                raise self._error(line0 + int(used[owner[t]]),
                                  "expected an unsigned 64-bit integer sequence id before the first '|', got %r"
                                  % b[line_start[owner[t]]:first_pipe[owner[t]]].tobytes().decode(
                                      'utf-8', 'replace').strip())
            ids[owner] = values
            has_id[owner] = True
        return ids, has_id

    def _warn_unknown(self, b, fp, aend, fline, unknown, line0):
        names = {b[fp[f] + 1:aend[f]].tobytes().decode('utf-8', 'replace') for f in unknown[:1000]}
        for name in sorted(names - self._warned):
            self._warned.add(name)
            warnings.warn("%s:%d: input '%s' is not one of the configured streams (%s); its values are "
                          "skipped" % (self.filename, line0 + int(fline[unknown[0]]) + 1, name,
                                       ", ".join(s[1] for s in self.streams)))

    @staticmethod
    def _line_text(b, line_start, nl, line):
        return b[line_start[line]:nl[line]].tobytes().decode('utf-8', 'replace').strip()

    # ---------------------------------------------------------------- sequences over blocks
    def _assemble(self, blocks):
        lines = np.concatenate([bl.lines for bl in blocks])
        has_id = np.concatenate([bl.has_id for bl in blocks])
        ids = np.concatenate([bl.ids for bl in blocks])
        new_seq = np.ones(len(lines), bool)
        new_seq[1:] = ~has_id[1:] | ~has_id[:-1] | (ids[1:] != ids[:-1])
        seq_of_line = np.cumsum(new_seq) - 1
        first = np.flatnonzero(new_seq)
        keys = np.where(has_id, ids, lines.astype(np.uint64))[first]
        streams = {}
        for s, (name, alias, dim, is_sparse) in enumerate(self.streams):
            parts = [bl.samples[s] for bl in blocks]
            sample_lines = np.concatenate([p[1] for p in parts])
            rows = sp.vstack([p[0] for p in parts], format='csr') if is_sparse else \
                np.concatenate([p[0] for p in parts])
            seq = seq_of_line[np.searchsorted(lines, sample_lines)]
            lengths = np.bincount(seq, minlength=len(first))
            empty = np.flatnonzero(lengths == 0)
            if len(empty):
                raise self._error(int(lines[first[empty[0]]]), "sequence %s has no sample for input '%s'"
                                  % (keys[empty[0]], alias))
            streams[name] = SequenceData.from_lengths(rows, lengths)
        return Chunk(keys, streams)
