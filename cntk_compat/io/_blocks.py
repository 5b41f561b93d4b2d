"""Randomization as CNTK does it, in windows of chunks.

Per sweep the chunk order is a permutation seeded by ``seed + sweep``.  Consecutive chunks of a
worker's order form a window (a fixed number of chunks, or enough chunks to hold a number of
samples); only a window (and the one being prefetched) is in memory.  The sequences of a window are
shuffled with a generator seeded by the sweep seed and the window's position, so every sweep is
reproducible from (seed, sweep) alone, which is what makes checkpoints exact.

Distributed reading: with at least as many chunks as workers, every worker takes every n-th chunk of
the sweep order; otherwise all workers read the same windows and take every n-th sequence.
"""
import warnings

import numpy as np

from ._sequences import SequenceData


class Block(object):
    """The (shuffled, decimated) sequences of one window.

    Sample counts come twice: this worker's (``ends``: its samples up to and including each of its sequences)
    and the window's, over all workers' sequences in window order (``global_starts``/``global_ends`` of each of
    this worker's sequences, ``global_total``), against which ``max_samples`` is counted, as in CNTK."""
    __slots__ = ('streams', 'sizes', 'ends', 'global_starts', 'global_ends', 'global_total', 'num_chunks')

    def __init__(self, streams, sizes, num_chunks, window_sizes=None, mine=slice(None)):
        self.streams = streams      # name -> SequenceData
        self.sizes = sizes          # samples per sequence that count toward the minibatch size
        self.ends = np.cumsum(sizes, dtype=np.int64)
        # without window_sizes this worker's sequences are the whole window
        window_ends = self.ends if window_sizes is None else np.cumsum(window_sizes, dtype=np.int64)
        self.global_ends = window_ends[mine]
        self.global_starts = self.global_ends - sizes
        self.global_total = int(window_ends[-1]) if len(window_ends) else 0
        self.num_chunks = num_chunks

    def __len__(self):
        return len(self.sizes)


class BlockPlanner(object):
    def __init__(self, deserializers, randomize, window_in_chunks, window_in_samples, seed, frame_mode,
                 size_stream):
        self.primary = deserializers[0]
        self.secondary = deserializers[1:]
        self.randomize = randomize
        self.window_in_chunks = window_in_chunks
        self.window_in_samples = window_in_samples
        self.seed = seed
        self.frame_mode = frame_mode
        self.size_stream = size_stream
        self.num_chunks = self.primary.num_chunks()
        if self.num_chunks == 0:
            raise ValueError('%s has no data' % self.primary.kind)

    def sweep_seed(self, sweep):
        return self.seed + sweep

    def chunk_order(self, sweep, parts, part):
        """(chunk ids of this worker in this sweep, whether sequences are decimated instead)."""
        order = np.arange(self.num_chunks)
        if self.randomize:
            order = np.random.default_rng(self.sweep_seed(sweep)).permutation(self.num_chunks)
        if parts > 1 and self.num_chunks >= parts:
            return order[part::parts], False
        return order, parts > 1

    def load(self, sweep, start, parts, part):
        """The window of this worker's chunk order that begins at position ``start``."""
        order, decimate = self.chunk_order(sweep, parts, part)
        seed = self.sweep_seed(sweep)
        chunks, samples = [], 0
        pos = start
        while pos < len(order):
            if pos + 1 < len(order):
                self.primary.read_ahead(int(order[pos + 1]))
            chunk = self._composed_chunk(int(order[pos]), seed)
            chunks.append(chunk)
            pos += 1
            samples += int(self._sizes(chunk).sum())
            if not self.randomize:
                break
            if self.window_in_samples > 0 and samples >= self.window_in_samples:
                break
            if self.window_in_samples <= 0 and len(chunks) >= self.window_in_chunks:
                break
        names = list(chunks[0].keys())
        streams = {n: SequenceData.concat([c[n] for c in chunks]) for n in names}
        if self.frame_mode:
            streams = self._frames(streams)
        sizes = self._sizes(streams)
        select = np.arange(len(sizes))
        if self.randomize:
            select = np.random.default_rng([seed, start]).permutation(len(sizes))
        window_sizes = sizes[select] if decimate else None
        mine = slice(part, None, parts) if decimate else slice(None)
        select = select[mine]
        if self.randomize or decimate:
            streams = {n: d.take(select) for n, d in streams.items()}
        return Block(streams, sizes[select], pos - start, window_sizes, mine)

    def _sizes(self, streams):
        if self.size_stream is not None:
            return streams[self.size_stream].lengths
        return np.max([d.lengths for d in streams.values()], axis=0)

    @staticmethod
    def _frames(streams):
        lengths = [d.lengths for d in streams.values()]
        if any(not np.array_equal(lengths[0], l) for l in lengths[1:]):
            raise ValueError('frame_mode requires all streams of a sequence to have the same number of '
                             'samples')
        return {n: d.split_frames() for n, d in streams.items()}

    def _composed_chunk(self, chunk_id, seed):
        chunk = self.primary.chunk(chunk_id, seed)
        streams = dict(chunk.streams)
        keys = chunk.keys
        for d in self.secondary:
            found_streams, found = d.sequences_for_keys(keys, seed)
            if found_streams is None:
                raise ValueError('none of the sequence keys of chunk %d of %s (e.g. %s) exists in %s'
                                 % (chunk_id, self.primary.kind, keys[0], d.kind))
            if not found.all():
                missing = keys[~found]
                warnings.warn('%d sequence(s) of %s are missing in %s and are skipped (first key: %s)'
                              % (len(missing), self.primary.kind, d.kind, missing[0]))
                keep = np.flatnonzero(found)
                streams = {n: s.take(keep) for n, s in streams.items()}
                keys = keys[keep]
            streams.update(found_streams)
        return streams
