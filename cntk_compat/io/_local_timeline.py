"""Reading on a local timeline: how CNTK 2.7 reads a :class:`UserDeserializer`, whose chunks come without
sequence counts (CNTK's ``LTTumblingWindowRandomizer`` and ``LTNoRandomizer`` behind a non-composable reader).

Randomized (``LTTumblingWindowRandomizer``), with ``offset`` the randomization seed:

* the chunk order of sweep s is the shuffle of :func:`._randomizer.shuffle_chunks` with the seed s + offset;
* a window is filled from the current chunk position onwards, one chunk after another, with the sequences (in
  chunk order) of the chunks at the positions p with p % workers == rank, until ``window`` such chunks (or,
  with a window in samples, that many samples) are in it; the window runs on over sweep ends;
* at each sweep end the sequences added since the window's start (or the previous sweep end) are shuffled, a
  Fisher-Yates pass (for i = b .. e-1 swap i with i + draw % (e - i)) of a mt19937_64 engine seeded with
  (chunk position where that part of the window began + sweep + offset), and an end-of-sweep marker follows;
  the rest of the window is shuffled the same way at its end;
* the next window starts at the chunk position where this one stopped.

In order (``LTNoRandomizer``): one chunk a window, the chunks in their order; with several workers a worker keeps
the sequences whose position in the sweep is its rank modulo the number of workers; a marker ends each sweep.

Minibatches take whole sequences while fewer samples than asked for are in (the first always); a marker met on
the way sets the minibatch's end-of-sweep flag (so a sweep that ends exactly with a minibatch flags the next
one). The reading ends when the markers consumed reach ``max_sweeps`` or the samples read reach this worker's
share of ``max_samples`` (max_samples // workers, one more for the first max_samples % workers ranks).
"""
import numpy as np

from ._randomizer import _Draws, _seed, shuffle_chunks
from ._sequences import SequenceData
from .source_config import INFINITELY_REPEAT

_MARK = None   # the end-of-sweep marker in a window


def _shuffle_range(items, begin, end, seed):
    """CNTK's ``RandomShuffleMT(v, begin, end, rng)`` with the engine seeded with ``seed``."""
    count = end - begin
    if count <= 0:
        return
    draws = _Draws(_seed(seed)).take(count).tolist()
    for k, i in enumerate(range(begin, end)):
        j = i + draws[k] % (end - i)
        items[i], items[j] = items[j], items[i]


class LocalTimeline(object):
    """The sequences a worker reads from a deserializer without chunk sizes, as CNTK 2.7 orders them."""

    def __init__(self, deserializer, randomize, window_in_chunks, window_in_samples, seed, max_samples,
                 max_sweeps, size_stream):
        self._deserializer = deserializer
        self._randomize = bool(randomize)
        self._in_samples = window_in_samples > 0
        self._window = int(window_in_samples if self._in_samples else window_in_chunks)
        self._offset = int(seed)
        self._max_samples, self._max_sweeps = max_samples, max_sweeps
        self._size_stream = size_stream
        self._num_chunks = deserializer.num_chunks()
        self._chunks, self._previous_chunks = {}, {}
        self._dry = False
        self.reset(1, 0)

    # ------------------------------------------------------------------ state
    def reset(self, parts, part):
        self._parts, self._part = int(parts), int(part)
        self._inner = (0, 0)       # (chunk position, sweep index) or (chunk position, sequence position)
        self._sweeps, self._samples = 0, 0
        self._window_inner = None  # the inner state the current window was made from
        self._items, self._pos = None, 0

    @property
    def samples(self):
        return self._samples

    def get_state(self):
        return dict(local_timeline=True, sweeps=self._sweeps, samples=self._samples, position=self._pos,
                    inner=list(self._window_inner if self._window_inner is not None else self._inner),
                    started=self._window_inner is not None, parts=self._parts, part=self._part)

    def set_state(self, state):
        try:
            parts, part = int(state['parts']), int(state['part'])
            sweeps, samples, pos = int(state['sweeps']), int(state['samples']), int(state['position'])
            inner, started = tuple(int(v) for v in state['inner']), bool(state['started'])
        except (KeyError, TypeError, ValueError):
            raise ValueError('not a MinibatchSource checkpoint state: %r' % (state,))
        self.reset(parts, part)
        self._sweeps, self._samples, self._inner = sweeps, samples, inner
        if started:
            self._refill()
            self._pos = pos

    @staticmethod
    def is_state(state):
        return isinstance(state, dict) and state.get('local_timeline') is True

    # ------------------------------------------------------------------ windows
    def _chunk(self, chunk_id):
        if chunk_id not in self._chunks:
            streams = self._deserializer.chunk(chunk_id, 0).streams
            if self._size_stream is not None:
                sizes = streams[self._size_stream].lengths
            else:
                sizes = np.max([d.lengths for d in streams.values()], axis=0)
            self._chunks[chunk_id] = (streams, sizes.tolist())
        return self._chunks[chunk_id]

    def _refill(self):
        """Makes the window that follows the inner state, and moves the inner state past it."""
        self._window_inner = self._inner
        self._previous_chunks, self._chunks = self._chunks, {}
        items, guard = [], 0
        while not items:
            items.extend(self._tumbling_window() if self._randomize else self._ordered_window())
            guard += 1
            if guard > self._num_chunks + 1:
                break
        # a worker that no sequence reaches (fewer chunks or sequences than workers) reads nothing
        self._dry = not any(s is not _MARK for s in items)
        self._items, self._pos = items, 0

    def _tumbling_window(self):
        position, sweep = self._inner
        n, parts, part = self._num_chunks, self._parts, self._part
        order = shuffle_chunks(n, self._offset + sweep).tolist()
        items, last_seq, last_window = [], 0, position
        remaining, visited, loaded = self._window, 0, 0
        while remaining > 0:
            if position % parts == part:
                chunk_id = order[position]
                sizes = self._chunk(chunk_id)[1]
                items.extend((chunk_id, i, s) for i, s in enumerate(sizes))
                remaining -= sum(sizes) if self._in_samples else 1
                loaded += 1
            visited += 1
            if position == n - 1:
                _shuffle_range(items, last_seq, len(items), last_window + sweep + self._offset)
                sweep += 1
                order = shuffle_chunks(n, self._offset + sweep).tolist()
                items.append(_MARK)
                last_window, last_seq = 0, len(items)
                if self._max_sweeps != INFINITELY_REPEAT and sweep >= self._max_sweeps:
                    break   # nothing after the last sweep is read
            position = (position + 1) % n
            if loaded == 0 and visited >= n:
                break   # no chunk of this worker's
        _shuffle_range(items, last_seq, len(items), last_window + sweep + self._offset)
        self._inner = (position, sweep)
        return items

    def _ordered_window(self):
        position, seq_position = self._inner
        sizes = self._chunk(position)[1]
        items = []
        for i, s in enumerate(sizes):
            if self._parts == 1 or (seq_position + i) % self._parts == self._part:
                items.append((position, i, s))
        seq_position += len(sizes)
        if position == self._num_chunks - 1:
            items.append(_MARK)
            seq_position = 0
        self._inner = ((position + 1) % self._num_chunks, seq_position)
        return items

    # ------------------------------------------------------------------ reading
    def _local_max_samples(self):
        if self._max_samples == INFINITELY_REPEAT:
            return None
        total = int(self._max_samples)
        return total // self._parts + (1 if total % self._parts > self._part else 0)

    def _end_reached(self):
        if self._max_sweeps != INFINITELY_REPEAT:
            return self._sweeps >= self._max_sweeps
        limit = self._local_max_samples()
        return limit is not None and self._samples >= limit

    def _advance(self):
        self._pos += 1
        if self._pos >= len(self._items):
            self._refill()

    def read(self, target):
        """(stream name -> SequenceData, whether a sweep ended) of the next sequences of about ``target``
        samples, or (None, sweep ended) when there are none."""
        if self._end_reached():
            return None, False
        if self._items is None:
            self._refill()
        if self._dry:
            return None, False
        picked, loaded, sweep_end = [], 0, False
        while loaded < target and not self._end_reached():
            item = self._items[self._pos]
            if item is _MARK:
                self._sweeps += 1
                sweep_end = True
                self._advance()
                continue
            if picked and loaded + item[2] > target:
                break
            picked.append(item)
            loaded += item[2]
            self._samples += item[2]
            self._advance()
        if not picked:
            return None, sweep_end
        return self._gather(picked), sweep_end

    def _gather(self, picked):
        by_chunk = {}
        for k, (chunk_id, index, _) in enumerate(picked):
            by_chunk.setdefault(chunk_id, []).append((k, index))
        parts, positions = {}, []
        for chunk_id, entries in by_chunk.items():
            cached = self._chunks.get(chunk_id) or self._previous_chunks.get(chunk_id)
            streams = cached[0] if cached else self._deserializer.chunk(chunk_id, 0).streams
            at = np.array([i for _, i in entries], np.int64)
            positions.extend(k for k, _ in entries)
            for name, data in streams.items():
                parts.setdefault(name, []).append(data.take(at))
        inverse = np.argsort(np.array(positions, np.int64), kind='stable')
        return {name: SequenceData.concat(p).take(inverse) for name, p in parts.items()}
