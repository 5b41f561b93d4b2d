"""Blocks of sequences in the order the reader delivers them.

Without randomization a block is one chunk, read in file order.  With randomization the order is CNTK 2.7's
(``_randomizer.SweepOrder``, seeded by ``seed + sweep``): a block holds the sequence positions of one
randomized chunk position, gathered from the chunks of its randomization window, which are the chunks kept
in memory (as in CNTK).  Every sweep is reproducible from (seed, sweep) alone, which is what makes
checkpoints exact.  The first randomized sweep needs the number of sequences and samples of every chunk:
chunks are parsed once to count them (kept in memory when the window holds all chunks anyway).

Distributed reading: with at least as many chunks as workers, a worker takes the sequences whose chunk's
randomized position is its rank modulo the number of workers (CNTK's chunk decimation; without
randomization, every n-th chunk of the file order); reading in order with fewer chunks than workers, CNTK 2.7
deals the sequences out by a running count (the sequence whose count is the worker's rank modulo the number of
workers is the worker's) that goes on across sweeps and restarts at the sequence's index in its sweep whenever
the reader is repositioned (a minibatch size other than the last one's, a restored checkpoint).
"""
import collections
import threading
import warnings

import numpy as np

from ._deserializer import ReaderError
from ._randomizer import SweepOrder
from ._sequences import SequenceData


class Block(object):
    """The (shuffled, decimated) sequences of one window.

    Sample counts come twice: this worker's (``ends``: its samples up to and including each of its sequences)
    and the window's, over all workers' sequences in window order (``global_starts``/``global_ends`` of each of
    this worker's sequences, ``global_total``), against which ``max_samples`` is counted, as in CNTK."""
    __slots__ = ('streams', 'sizes', 'ends', 'global_starts', 'global_ends', 'global_total', 'num_chunks',
                 'window_ends', 'mine', 'decimated')

    def __init__(self, streams, sizes, num_chunks, window_sizes=None, mine=None, decimated=False):
        self.streams = streams      # name -> SequenceData
        self.sizes = sizes          # samples per sequence that count toward the minibatch size
        self.ends = np.cumsum(sizes, dtype=np.int64)
        # without window_sizes this worker's sequences are the whole window
        self.window_ends = self.ends if window_sizes is None else np.cumsum(window_sizes, dtype=np.int64)
        self.mine = np.arange(len(sizes)) if mine is None else mine   # their positions in the window
        self.global_ends = self.window_ends[self.mine]
        self.global_starts = self.global_ends - sizes
        self.global_total = int(self.window_ends[-1]) if len(self.window_ends) else 0
        self.num_chunks = num_chunks
        self.decimated = decimated  # this worker's sequences are dealt out of the window's by a running count

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
        self.frame_mode = frame_mode and self.primary.frames_in_frame_mode   # whether sequences split into frames
        self.size_stream = size_stream
        self.num_chunks = self.primary.num_chunks()
        if self.num_chunks == 0:
            raise ValueError('%s has no data' % self.primary.kind)
        self._lock = threading.RLock()
        self._orders = collections.OrderedDict()    # sweep -> SweepOrder (the last two)
        self._sizes_per_chunk = None                # original chunk id -> samples of each of its sequences
        self._chunks = {}                           # original chunk id -> streams in memory

    def sweep_seed(self, sweep):
        return self.seed + sweep

    def chunk_order(self, sweep, parts, part):
        """(the block positions this worker reads in this sweep, whether sequences are decimated instead).

        As in CNTK 2.7: randomized reading gives each worker the chunks whose position in the sweep's chunk
        order is its index modulo the number of workers (a worker left without a chunk reads nothing); reading
        in order does so too when there are at least as many chunks as workers, and else deals out the
        sequences."""
        order = np.arange(self.num_chunks)
        if self.randomize:
            return order, False
        decimate = self.deals_out(parts)
        if parts > 1 and not decimate:
            return order[part::parts], False
        return order, decimate

    def deals_out(self, parts):
        """Whether ``parts`` workers get the sequences dealt out by a running count (reading in order, fewer
        chunks than workers)."""
        return not self.randomize and parts > 1 and self.num_chunks < parts

    def load(self, sweep, start, parts, part, offset=0):
        """The block at position ``start`` of this worker's order in ``sweep``; where sequences are dealt out,
        ``offset`` is the running count of sequences at the block's first one, modulo the number of workers."""
        if self.randomize:
            with self._lock:
                return self._load_randomized(sweep, start, parts, part)
        order, decimate = self.chunk_order(sweep, parts, part)
        if start + 1 < len(order):
            self.primary.read_ahead(int(order[start + 1]))
        streams = self._composed_chunk(int(order[start]), self.sweep_seed(sweep))
        if self.frame_mode:
            streams = self._frames(streams)
        sizes = self._sizes(streams)
        if not decimate:
            return Block(streams, sizes, 1)
        mine = np.arange((part - offset) % parts, len(sizes), parts)
        return Block({n: d.take(mine) for n, d in streams.items()}, sizes[mine], 1, sizes, mine, decimated=True)

    # ------------------------------------------------------------------ randomized
    def _order(self, sweep):
        if sweep not in self._orders:
            sizes = self._chunk_sizes(self.sweep_seed(sweep))
            in_samples = self.window_in_samples > 0
            self._orders[sweep] = SweepOrder([len(s) for s in sizes], [int(s.sum()) for s in sizes],
                                             self.sweep_seed(sweep),
                                             self.window_in_samples if in_samples else self.window_in_chunks,
                                             in_samples)
            while len(self._orders) > 2:
                self._orders.popitem(last=False)
        return self._orders[sweep]

    def _chunk_sizes(self, seed):
        if self._sizes_per_chunk is None:
            keep = self.num_chunks == 1 or (self.window_in_samples <= 0 and self.num_chunks <= self.window_in_chunks)
            sizes = []
            for c in range(self.num_chunks):
                known = None if (self.secondary or self.frame_mode) else self.primary.chunk_sequence_lengths(c)
                if known is not None:
                    sizes.append(np.asarray(known, np.int64))
                    continue
                if c + 1 < self.num_chunks:
                    self.primary.read_ahead(c + 1)
                streams = self._load_chunk(c, seed)
                sizes.append(self._sizes(streams))
                if not keep:
                    self._chunks.pop(c, None)
            self._sizes_per_chunk = sizes
        return self._sizes_per_chunk

    def _load_chunk(self, chunk_id, seed):
        if chunk_id not in self._chunks:
            streams = self._composed_chunk(chunk_id, seed)
            if self.frame_mode:
                streams = self._frames(streams)
            self._chunks[chunk_id] = streams
        return self._chunks[chunk_id]

    def _load_randomized(self, sweep, position, parts, part):
        order = self._order(sweep)
        seed = self.sweep_seed(sweep)
        # tiny chunks (an image each) are read a few hundred sequences per block, not one block per chunk
        last = position + 1
        while (last < self.num_chunks and int(order.starts[last] - order.starts[position]) < self.primary.block_sequences):
            last += 1
        lo, hi = int(order.starts[position]), int(order.starts[last])
        source, index = order.source[lo:hi], order.index[lo:hi]
        chunk_ids = order.chunk_ids[source]
        sizes_all = np.zeros(hi - lo, np.int64)
        for c in np.unique(chunk_ids).tolist():
            at = np.flatnonzero(chunk_ids == c)
            sizes_all[at] = self._sizes_per_chunk[c][index[at]]
        mine = None if parts == 1 else np.flatnonzero(source % parts == part)
        picked = np.arange(hi - lo) if mine is None else mine
        streams = self._gather(chunk_ids[picked], index[picked], seed)
        # keep in memory the chunks of the next position's window (this worker's), drop the others
        nxt = min(last, self.num_chunks - 1)
        window = order.chunk_ids[int(order.window_begin[nxt]):int(order.window_end[nxt])]
        keep = {int(c) for c in window}
        for key in [k for k in self._chunks if k not in keep]:
            del self._chunks[key]
        if mine is None:
            return Block(streams, sizes_all, last - position)
        return Block(streams, sizes_all[mine], last - position, sizes_all, mine)

    def _gather(self, chunk_ids, index, seed):
        """Per stream, the sequences ``index[i]`` of original chunks ``chunk_ids[i]``, in that order."""
        if len(chunk_ids) == 0:
            return {}
        if not self.secondary and not self.frame_mode:
            direct = self.primary.gather_sequences(chunk_ids, index, seed)
            if direct is not None:
                return direct
        by_chunk = np.argsort(chunk_ids, kind='stable')
        ids, first = np.unique(chunk_ids[by_chunk], return_index=True)
        bounds = list(first) + [len(by_chunk)]
        parts = collections.defaultdict(list)
        for k, c in enumerate(ids.tolist()):
            streams = self._load_chunk(c, seed)
            at = index[by_chunk[bounds[k]:bounds[k + 1]]]
            for name, data in streams.items():
                parts[name].append(data.take(at))
        inverse = np.argsort(by_chunk, kind='stable')
        return {name: SequenceData.concat(p).take(inverse) if len(p) > 1 else p[0].take(inverse)
                for name, p in parts.items()}

    def _sizes(self, streams):
        if self.size_stream is not None:
            return streams[self.size_stream].lengths
        return np.max([d.lengths for d in streams.values()], axis=0)

    @staticmethod
    def _frames(streams):
        lengths = [d.lengths for d in streams.values()]
        if any(not np.array_equal(lengths[0], l) for l in lengths[1:]):
            raise ReaderError('frame_mode requires all streams of a sequence to have the same number of '
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
