"""Truncated back-propagation through time: sequences cut into pieces of ``truncation_length`` samples.

As in CNTK 2.7, a minibatch of N samples has max(1, N // truncation_length) parallel slots; in a distributed
job N is the whole minibatch, the slots are dealt out among the workers (slots // workers, one more for the
first slots % workers ranks) and more workers than slots is CNTK's ValueError ("Too many workers ..."). The
number of workers that counts is that of the reader's first minibatch: after a warm start read whole (one
partition), each worker keeps all the slots of a minibatch, and the reverse keeps the share (CNTK 2.7, measured).

Each slot is a queue of whole sequences read ahead. Slot by slot, a minibatch first tops the slot up (it reads
the next sequence of the reader while the slot holds no more than ``truncation_length`` samples not yet
delivered) and then takes up to ``truncation_length`` samples from the front of its queue, which may end one
sequence and begin the next. Every piece is a sequence of the minibatch; ``starts`` tells which pieces begin
their sequence and ``slots`` which slot each comes from: a continuing piece continues the last piece of its
slot in the previous minibatch (CNTK's parallel sequence), which is how the delayed values are carried over.
Minibatches span ``truncation_length`` steps, the slots that deliver less padded.

A minibatch size or partitioning other than the last one's starts with empty slots, and so does a restored
checkpoint (the reader's position after the sequences read ahead): what the slots held is not delivered, as
in CNTK 2.7, whose reader drops its read-ahead then.
"""
import collections

import numpy as np

from ._deserializer import ReaderError
from ._sequences import SequenceData


class _Sequence(object):
    __slots__ = ('streams', 'length', 'ends_sweep')

    def __init__(self, streams, ends_sweep):
        self.streams = streams          # name -> SequenceData holding one sequence
        self.length = _common_length(streams)
        self.ends_sweep = ends_sweep    # whether it is the last sequence of a sweep


class _Slot(object):
    """The sequences read ahead for one parallel sequence, and how far the first one was delivered."""
    __slots__ = ('queue', 'offset', 'available')

    def __init__(self):
        self.queue = collections.deque()
        self.offset = 0
        self.available = 0


def _common_length(streams):
    lengths = {name: int(d.offsets[-1]) for name, d in streams.items()}
    if len(set(lengths.values())) != 1:
        raise ReaderError('truncation_length requires all streams of a sequence to have the same number of '
                          'samples, got %s' % ', '.join('%s: %d' % kv for kv in sorted(lengths.items())))
    return lengths.popitem()[1]


class TruncatedReader(object):
    """Cuts the sequences of ``source`` (a MinibatchSource reading whole sequences) into slots."""

    def __init__(self, source, truncation_length):
        self._source = source
        self.length = int(truncation_length)
        self._slots = []
        self._request = None
        self._first_parts = None     # the number of partitions of the first minibatch

    def reset(self):
        """Empty slots: what they held is not delivered (a restored checkpoint)."""
        self._slots, self._request = [], None

    def _top_up(self, slot):
        while slot.available <= self.length:
            streams, sweep_end = self._source.read_sequences(1)
            if streams is None:
                return
            sequence = _Sequence(streams, sweep_end)
            slot.queue.append(sequence)
            slot.available += sequence.length

    def next(self, minibatch_size, parts=1, part=0):
        """(stream name -> SequenceData of the pieces, whether the last piece of a sweep is among them,
        which pieces start a sequence, the slot of each piece, the number of slots) of this worker's share of a
        minibatch of ``minibatch_size`` samples (all workers'); None at the end of the data."""
        num_slots = max(1, minibatch_size // self.length)
        if parts > num_slots:
            raise ValueError('Too many workers for minibatch size; please increase minibatch size or decrease '
                             'number of workers.')
        if self._first_parts is None:
            self._first_parts = parts
        num_slots = num_slots // self._first_parts + (1 if part < num_slots % self._first_parts else 0)
        if self._request != (minibatch_size, parts, part):
            self._slots = [_Slot() for _ in range(num_slots)]
            self._request = (minibatch_size, parts, part)
        pieces, starts, slots, sweep_end = [], [], [], False
        for i, slot in enumerate(self._slots):
            self._top_up(slot)
            wanted = min(self.length, slot.available)
            slot.available -= wanted
            while wanted:
                sequence = slot.queue[0]
                take = min(wanted, sequence.length - slot.offset)
                pieces.append((sequence, slot.offset, slot.offset + take))
                starts.append(slot.offset == 0)
                slots.append(i)
                slot.offset += take
                wanted -= take
                if slot.offset == sequence.length:
                    slot.queue.popleft()
                    slot.offset = 0
                    sweep_end |= sequence.ends_sweep
        if not pieces:
            return None
        names = pieces[0][0].streams.keys()
        streams = {name: SequenceData.from_sequences([s.streams[name].rows[lo:hi] for s, lo, hi in pieces])
                   for name in names}
        return streams, sweep_end, np.array(starts, bool), np.array(slots, np.int64), len(self._slots)
