"""The order in which CNTK 2.7's block randomizer delivers the sequences of a sweep, reproduced exactly.

CNTK (``BlockRandomizer`` with its ``ChunkRandomizer`` and ``SequenceRandomizer``) randomizes sweep ``s`` with
the seed ``randomization_seed + s``, using two ``std::mt19937_64`` engines seeded with it:

1. chunks: for i = 0 .. C-1, swap position i with position ``draw % C`` (a draw of the first engine);
2. each randomized chunk position gets a window of chunk positions its sequences may come from: ``window``
   chunks around it (in chunks), or the chunks within half of ``window`` samples on either side (in samples);
3. sequences, laid out in randomized chunk order: for every position t in turn, draw
   ``j = lo + draw % (hi - lo)`` (second engine) over the sequence positions of t's window, until the
   sequence now at j may stand at t and the one at t may stand at j (each within the other's window);
   then swap them.

When every window covers all chunks (a file of a few chunks, the default window of 128), step 3 is a
plain swap with ``draw % N``.  The draws are generated in numpy; the swaps are one pass over Python lists
(about half a second per million sequences, once per sweep).
"""
import numpy as np

from ..core.cntk_rng import EngineStream

_DRAWS_PER_REFILL = 312 * 64


class _Draws(object):
    """The outputs of one mt19937_64 engine: a numpy block at a time (``take``) or one by one (``next``)."""

    def __init__(self, seed):
        self._stream = EngineStream(seed)
        self._buffer, self._pos = [], 0

    def take(self, count):
        assert self._pos == len(self._buffer), 'take() after next() would skip buffered draws'
        return self._stream.take(count)

    def next(self):
        if self._pos == len(self._buffer):
            self._buffer, self._pos = self._stream.take(_DRAWS_PER_REFILL).tolist(), 0
        value = self._buffer[self._pos]
        self._pos += 1
        return value


def _seed(seed):
    # CNTK seeds the engines with (unsigned long)(randomization_seed + sweep)
    return int(seed) & 0xFFFFFFFFFFFFFFFF


def shuffle_chunks(num_chunks, seed):
    """Original chunk id at each randomized chunk position."""
    draws = _Draws(_seed(seed)).take(num_chunks)
    order = list(range(num_chunks))
    for i, d in enumerate((draws % np.uint64(max(num_chunks, 1))).tolist()):
        order[i], order[d] = order[d], order[i]
    return np.array(order, dtype=np.int64)


def chunk_windows(samples, window, in_samples):
    """[begin, end) of the window of every randomized chunk position (``samples``: samples per position)."""
    count = len(samples)
    begin = np.zeros(count, np.int64)
    end = np.zeros(count, np.int64)
    if not in_samples:
        half, size = window // 2, max(int(window), 1)
        for i in range(count):
            b = i - half if i > half else 0
            e = b + size
            if e > count:
                e, b = count, (count - size if count > size else 0)
            begin[i], end[i] = b, e
        return begin, end
    half = window // 2
    starts = np.concatenate([[0], np.cumsum(samples, dtype=np.int64)]).tolist()
    b, e = 0, 1
    for i in range(count):
        while starts[i] - starts[b] > half:
            b += 1
        b, e = min(b, i), max(e, i + 1)
        while e < count and starts[e + 1] - starts[i] < half:
            e += 1
        begin[i], end[i] = b, e
    return begin, end


class SweepOrder(object):
    """The randomized layout of one sweep.

    ``chunk_ids[p]``: original chunk at randomized position p; ``starts[p]``: first sequence position of p
    (``starts[-1]`` is the number of sequences); for each sequence position t, ``source[t]`` is the randomized
    chunk position its sequence comes from and ``index[t]`` its index inside that chunk;
    ``window_begin/end[p]``: the chunk positions position p draws from."""

    def __init__(self, sequences_per_chunk, samples_per_chunk, seed, window, in_samples):
        num_chunks = len(sequences_per_chunk)
        self.chunk_ids = shuffle_chunks(num_chunks, seed)
        counts = np.asarray(sequences_per_chunk, np.int64)[self.chunk_ids]
        samples = np.asarray(samples_per_chunk, np.int64)[self.chunk_ids]
        self.window_begin, self.window_end = chunk_windows(samples, window, in_samples)
        self.starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        total = int(self.starts[-1])
        position_chunk = np.repeat(np.arange(num_chunks, dtype=np.int64), counts)
        index = np.arange(total, dtype=np.int64) - self.starts[:-1][position_chunk]
        draws = _Draws(_seed(seed))
        if total and bool(np.all(self.window_begin == 0)) and bool(np.all(self.window_end == num_chunks)):
            source, index = self._swap_all(position_chunk.tolist(), index.tolist(), draws, total)
        else:
            source, index = self._swap_in_windows(position_chunk.tolist(), index.tolist(), draws)
        self.source = np.array(source, dtype=np.int64)
        self.index = np.array(index, dtype=np.int64)

    @staticmethod
    def _swap_all(source, index, draws, total):
        for t, j in enumerate((draws.take(total) % np.uint64(total)).tolist()):
            source[t], source[j] = source[j], source[t]
            index[t], index[j] = index[j], index[t]
        return source, index

    def _swap_in_windows(self, source, index, draws):
        position_chunk = list(source)
        begin, end = self.window_begin.tolist(), self.window_end.tolist()
        starts = self.starts.tolist()
        for t in range(len(source)):
            c = position_chunk[t]
            b, e = begin[c], end[c]
            lo = starts[b]
            span = starts[e] - lo
            mine = source[t]
            while True:
                j = lo + draws.next() % span
                theirs = source[j]
                if theirs < b or theirs >= e:
                    continue
                cj = position_chunk[j]
                if mine < begin[cj] or mine >= end[cj]:
                    continue
                source[t], source[j] = theirs, mine
                index[t], index[j] = index[j], index[t]
                break
        return source, index
