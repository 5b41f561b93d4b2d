"""Parsing CNTK Text Format (CTF) text into sequences.

A line is ``[Sequence_Id] (|input v v v | input i:v i:v | # comment)+``.  Sequence ids are unsigned
64-bit integers, read exactly.  As in CNTK 2.7, the file's first line decides: when it has an id,
consecutive lines with the same id form one sequence and a line without an id continues the sequence
before it; when it has none, every line is a sequence of its own (keyed by its line number) and ids
are ignored.  Every line of a sequence is one of its rows, and some input must have a sample on every
row; lines holding no input (blank, blank but for a comment) are refused, except blank lines before
the first line.  Text is processed in blocks of
whole lines, in parallel: the compiled tokenizer (``_ctf_native``, built at install time when a C
compiler is present) takes every block it reads as plainly valid; the others, and every block when it
is not built, go through the numpy parser below, which also words the errors.  Sequences are assembled
over all blocks of a chunk.
"""
import concurrent.futures
import os
import re
import warnings

import numpy as np
import scipy.sparse as sp

from ._deserializer import Chunk, ReaderError
from ._numparse import parse_numbers, parse_uints, token_bounds
from ._sequences import SequenceData

try:
    from . import _ctf_native
except ImportError:          # built without a C compiler
    _ctf_native = None

_NL, _PIPE, _HASH, _COLON = 10, 124, 35, 58
_NON_BLANK = re.compile(rb'\S')
BLOCK_BYTES = 1 << 18          # numpy parser: small blocks keep its temporaries cheap
NATIVE_BLOCK_BYTES = 1 << 21   # compiled tokenizer: the smallest block worth a task of its own


class CTFFormatError(ReaderError):
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
_WORKERS = len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else (os.cpu_count() or 1)


def _block_pool():
    """Threads shared by all parsers for the blocks of a chunk (the tokenizer releases the GIL)."""
    if not _POOL:
        _POOL.append(concurrent.futures.ThreadPoolExecutor(max_workers=_WORKERS, thread_name_prefix='cntk-ctf'))
    return _POOL[0]


def _native_block_bytes(size, threads):
    """Block size for a chunk of ``size`` bytes parsed by ``threads`` threads: one block per thread, since
    every extra block costs a copy when the blocks are joined."""
    return max(NATIVE_BLOCK_BYTES, -(-size // max(1, threads)))


def _line_blocks(data, size):
    """(begin, end) of pieces of ``data`` of about ``size`` bytes, cut after a newline."""
    pos, total = 0, len(data)
    while pos < total:
        end = total if total - pos <= size else data.rfind(b'\n', pos, pos + size) + 1
        if end <= pos:   # a single line longer than a block
            end = data.find(b'\n', pos + size)
            end = total if end < 0 else end + 1
        yield pos, end
        pos = end


def _blank_line(b, line):
    """A copy of the block ``b`` whose line number ``line`` (0-based in the block) is blanked."""
    nl = np.flatnonzero(b == _NL)
    start = nl[line - 1] + 1 if line > 0 else 0
    blanked = b.copy()
    blanked[start:nl[line]] = 32
    return blanked


class _Block(object):
    """What one block of lines contributes: line numbers/ids and, per stream, its samples; and the names of
    fields that are not configured streams, with the line each first appears on."""
    __slots__ = ('lines', 'has_id', 'ids', 'samples', 'unknown')

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
        self.file_has_ids = True   # whether the file's first line has a sequence id (the reader tells)
        native = _ctf_native is not None and self.dtype in (np.float32, np.float64) and \
            all(s[2] < 2 ** 31 for s in streams if s[3])      # its sparse indices are int32
        self._native_args = (tuple(s[1].encode('utf-8') for s in streams), tuple(int(s[2]) for s in streams),
                             tuple(bool(s[3]) for s in streams), self.dtype.itemsize) if native else None

    def _error(self, line, message):
        return CTFFormatError("%s:%d: %s" % (self.filename, line + 1, message), line)

    def parse_chunk(self, data, first_line):
        """Parse ``data`` (whole lines; line numbers start at ``first_line``, 0-based): (Chunk, number of lines)."""
        return self.finish(self.start(data), first_line)

    def start(self, data, share=1.0):
        """Begin parsing ``data`` (whole lines) on ``share`` of the block threads (less when another chunk is
        parsed at the same time); ``finish`` completes it."""
        if self._native_args is None or data.find(b'\0') >= 0:  # the numpy parser words the NUL error
            return data, [(0, len(data))], [None]
        bounds = list(_line_blocks(data, _native_block_bytes(len(data), int(_WORKERS * share))))
        view, args = memoryview(data), self._native_args
        return data, bounds, [_block_pool().submit(_ctf_native.parse_block, view[a:b], *args) for a, b in bounds]

    def finish(self, started, first_line):
        """(Chunk, number of lines) of text that ``start`` began to parse; its lines are numbered from
        ``first_line`` (0-based)."""
        data, bounds, pending = started
        blocks, line = [], first_line
        for (a, b), future in zip(bounds, pending):
            result = None if future is None else future.result()
            if result is None:
                general, lines = self._parse_general(data[a:b], line)
                blocks.extend(general)
                line += lines
            else:
                blocks.append(self._native_block(result, line))
                line += result[0]
        return self.chunk_of_blocks(data, blocks, first_line, line), line - first_line

    def chunk_of_blocks(self, data, blocks, first_line, end_line):
        """The Chunk of the parsed blocks of ``data``, whose lines are [first_line, end_line), once the lines are
        checked as CNTK 2.7 checks them."""
        unknown = [u for block in blocks for u in block.unknown]
        unnamed = [ln for name, ln in unknown if name == '']
        if unnamed:
            raise self._error(min(unnamed), "'|' is not followed by an input name")
        self._check_rows(data, blocks, first_line, end_line)
        self._warn_unknown(unknown)
        return self._assemble(blocks)

    def _check_rows(self, data, blocks, first_line, end_line):
        """Every line from the file's first non-blank one on must hold an input (the malformed lines skipped
        under ``max_errors`` aside): CNTK 2.7 reads a blank or comment-only line as an empty row of the
        sequence before it and fails."""
        used = _concat([bl.lines for bl in blocks]) if blocks else np.zeros(0, np.int64)
        start = first_line
        if first_line == 0:                 # blank lines may open the file
            text = _NON_BLANK.search(data)
            if text is None:
                raise CTFFormatError("%s: input file is empty (it holds only blank lines)" % self.filename)
            start = data.count(b'\n', 0, text.start())
        expected = np.arange(start, end_line)
        if self._skipped_lines:
            expected = np.setdiff1d(expected, list(self._skipped_lines))
        if len(used) != len(expected):
            gap = expected[np.flatnonzero(np.isin(expected, used, invert=True))[0]]
            raise self._error(int(gap), "a line without any input (blank or only a comment) inside the data: "
                                        "CNTK reads it as an empty row of a sequence")

    def _native_block(self, parsed, line0):
        """A _Block from what the compiled tokenizer returned for a block starting at line ``line0``."""
        _, lines, has_id, ids, streams, unknown = parsed
        block = _Block()
        block.lines = np.frombuffer(lines, np.int64) + line0
        block.has_id = np.frombuffer(has_id, np.bool_)
        block.ids = np.frombuffer(ids, np.uint64)
        block.samples = []
        for (name, alias, dim, is_sparse), arrays in zip(self.streams, streams):
            sample_lines = np.frombuffer(arrays[-1], np.int64) + line0
            values = np.frombuffer(arrays[0], self.dtype)
            if is_sparse:
                rows = sp.csr_matrix((values, np.frombuffer(arrays[1], np.int32), np.frombuffer(arrays[2], np.int32)),
                                     shape=(len(sample_lines), dim))
            else:
                rows = values.reshape(len(sample_lines), dim)
            block.samples.append((rows, sample_lines))
        block.unknown = [(name.decode('utf-8', 'replace'), line0 + line) for name, line in unknown]
        return block

    def _parse_general(self, data, first_line):
        """The numpy parser's blocks of ``data``, and the number of lines it has."""
        blocks, line = [], first_line
        for a, b in _line_blocks(data, BLOCK_BYTES):
            piece = data[a:b] if data[b - 1:b] == b'\n' else data[a:b] + b'\n'
            block = np.frombuffer(piece, np.uint8)
            blocks.append(self._parse_skipping_bad_lines(block, line))
            line += int(np.count_nonzero(block == _NL))
        return blocks, line - first_line

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
        nul = np.flatnonzero(b == 0)
        if len(nul):
            line = int(np.searchsorted(nl, nul[0]))
            raise self._error(line0 + line, "NUL byte (\\x00) at column %d; a CTF file is text"
                              % (nul[0] - (nl[line - 1] + 1 if line else 0) + 1))
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
        unknown_names = {}
        for f in np.flatnonzero(stream_of < 0)[:1000]:
            unknown_names.setdefault(b[fp[f] + 1:aend[f]].tobytes().decode('utf-8', 'replace'), line0 + int(fline[f]))

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
        block.unknown = sorted(unknown_names.items(), key=lambda item: item[1])
        block.samples = []
        for s, (name, alias, dim, is_sparse) in enumerate(self.streams):
            fields = np.flatnonzero(kstream == s)
            lines = kline[fields] + line0
            toks = np.flatnonzero(kstream[tok_field] == s) if len(fields) else np.zeros(0, np.int64)
            if is_sparse:
                rows = self._sparse_rows(b, starts, ends, values, toks, counts[fields], lines, alias, dim)
            else:
                have = counts[fields]
                wrong = np.flatnonzero(have > dim)
                if len(wrong):
                    f = wrong[0]
                    raise self._error(int(lines[f]), "input '%s' expects %d values per sample, found %d"
                                      % (alias, dim, have[f]))
                short = np.flatnonzero(have < dim)
                if len(short):
                    # CNTK 2.7 reads a dense sample with fewer values as if the rest were 0 (a "sparse suffix")
                    f = short[0]
                    warnings.warn("%s:%d: a dense sample of input '%s' has a sparse suffix (expected size = %d, "
                                  "actual size = %d); the missing values are 0%s"
                                  % (self.filename, int(lines[f]) + 1, alias, dim, have[f],
                                     " (and %d more such samples)" % (len(short) - 1) if len(short) > 1 else ""))
                    rows = np.zeros((len(fields), dim), self.dtype)
                    offsets = np.concatenate([[0], np.cumsum(have)[:-1]])
                    owner = np.repeat(np.arange(len(fields)), have)
                    rows[owner, np.arange(len(toks)) - np.repeat(offsets, have)] = values[toks]
                else:
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

    def _warn_unknown(self, unknown):
        """One warning per field name that is not a configured stream: [(name, line)], over the whole file."""
        for name, line in unknown:
            if name not in self._warned:
                self._warned.add(name)
                warnings.warn("%s:%d: input '%s' is not one of the configured streams (%s); its values are "
                              "skipped" % (self.filename, line + 1, name, ", ".join(s[1] for s in self.streams)))

    @staticmethod
    def _line_text(b, line_start, nl, line):
        return b[line_start[line]:nl[line]].tobytes().decode('utf-8', 'replace').strip()

    # ---------------------------------------------------------------- sequences over blocks
    def _assemble(self, blocks):
        lines = _concat([bl.lines for bl in blocks])
        has_id = _concat([bl.has_id for bl in blocks])
        ids = _concat([bl.ids for bl in blocks])
        if self.file_has_ids and len(lines):
            # a line without an id continues the sequence before it (the chunk's first line: its own)
            owner = np.maximum.accumulate(np.where(has_id, np.arange(len(lines)), 0))
            seq_ids = np.where(has_id[owner], ids[owner], lines[owner].astype(np.uint64))
            new_seq = np.ones(len(lines), bool)
            new_seq[1:] = has_id[1:] & (seq_ids[1:] != seq_ids[:-1])
            seq_of_line = np.cumsum(new_seq) - 1
            first = np.flatnonzero(new_seq)
            keys = seq_ids[first]
        else:                           # every line is a sequence of its own, keyed by its number
            seq_of_line = first = np.arange(len(lines))
            keys = lines.astype(np.uint64)
        streams, longest = {}, None
        for s, (name, alias, dim, is_sparse) in enumerate(self.streams):
            parts = [bl.samples[s] for bl in blocks]
            sample_lines = _concat([p[1] for p in parts])
            rows = _stack_csr([p[0] for p in parts], dim) if is_sparse else _concat([p[0] for p in parts])
            if len(sample_lines) == len(lines) and np.array_equal(sample_lines, lines):
                # one sample on every line (the common case): no search, and without ids no count either
                lengths = np.ones(len(lines), np.int64) if seq_of_line is first else \
                    np.bincount(seq_of_line, minlength=len(first))
            else:
                repeated = np.flatnonzero(sample_lines[1:] == sample_lines[:-1])
                if len(repeated):
                    raise self._error(int(sample_lines[repeated[0]]),
                                      "input '%s' appears more than once on the line (a line holds at most one "
                                      "sample of each input)" % alias)
                lengths = np.bincount(seq_of_line[np.searchsorted(lines, sample_lines)], minlength=len(first))
            empty = np.flatnonzero(lengths == 0)
            if len(empty):
                raise self._error(int(lines[first[empty[0]]]), "sequence %s has no sample for input '%s'"
                                  % (keys[empty[0]], alias))
            streams[name] = SequenceData.from_lengths(rows, lengths)
            longest = lengths if longest is None else np.maximum(longest, lengths)
        if longest is not None:
            rows_of = np.diff(np.append(first, len(lines)))
            short = np.flatnonzero(longest < rows_of)
            if len(short):
                k = short[0]
                raise self._error(int(lines[first[k]]), "sequence %s has %d rows (lines), but no input has a sample "
                                  "on each of them (at most %d)" % (keys[k], rows_of[k], longest[k]))
        return Chunk(keys, streams)


def _concat(parts):
    """np.concatenate, without a copy for a single part."""
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _stack_csr(parts, dim):
    """The CSR matrices ``parts`` stacked by rows (what scipy.sparse.vstack does, without its checks: the
    parts come from the parsers, well formed and with one index type)."""
    if len(parts) == 1:
        return parts[0]
    nnz = np.cumsum([0] + [p.nnz for p in parts])
    index_type = np.int32 if nnz[-1] < 2 ** 31 else np.int64
    indptr = np.concatenate([parts[0].indptr[:1].astype(index_type)] +
                            [p.indptr[1:].astype(index_type) + index_type(offset) for p, offset in zip(parts, nnz)])
    return sp.csr_matrix((np.concatenate([p.data for p in parts]),
                          np.concatenate([p.indices for p in parts]).astype(index_type, copy=False), indptr),
                         shape=(len(indptr) - 1, dim), copy=False)
