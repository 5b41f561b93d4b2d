"""Truncated back-propagation through time: sequences cut into pieces of ``truncation_length`` samples.

As in CNTK, a minibatch of N samples has max(1, N // truncation_length) parallel slots; in a distributed job
N is the whole minibatch, the slots are dealt out among the workers (slots // workers, one more for the first
slots % workers ranks) and more workers than slots is CNTK's ValueError ("Too many workers ...").  Each slot
keeps reading its current sequence where the previous minibatch stopped and contributes up to
``truncation_length`` samples; when its sequence ends, the slot continues with the next sequence of
the reader within the same minibatch.  Every piece is a sequence of the minibatch; ``starts`` tells
which pieces begin their sequence (their mask starts with 2) and which continue one (mask 1), and
``slots`` which slot each piece comes from: a continuing piece continues the last piece of its slot in the
previous minibatch (CNTK's parallel sequence), which is how the delayed values are carried over.

Checkpoints are exact: the state holds the reader position before the oldest sequence still in a
slot, and for every slot which sequence (counted from there) it holds and how far it got.
"""
import numpy as np

from ._sequences import SequenceData


class _Slot(object):
    __slots__ = ('streams', 'ordinal', 'position', 'ends_sweep', 'offset', 'length')

    def __init__(self, streams, ordinal, position, ends_sweep):
        self.streams = streams          # name -> SequenceData holding one sequence
        self.ordinal = ordinal          # the how-many-th sequence the reader delivered
        self.position = position        # the reader position just before it
        self.ends_sweep = ends_sweep    # whether it is the last sequence of a sweep
        self.offset = 0
        self.length = _common_length(streams)

    @property
    def live(self):
        return self.offset < self.length


def _common_length(streams):
    lengths = {name: int(d.offsets[-1]) for name, d in streams.items()}
    if len(set(lengths.values())) != 1:
        raise ValueError('truncation_length requires all streams of a sequence to have the same number of '
                         'samples, got %s' % ', '.join('%s: %d' % kv for kv in sorted(lengths.items())))
    return lengths.popitem()[1]


class TruncatedReader(object):
    """Cuts the sequences of ``source`` (a MinibatchSource reading whole sequences) into slots."""

    def __init__(self, source, truncation_length):
        self._source = source
        self._length = int(truncation_length)
        self._slots = []
        self._ordinal = 0

    def _pull(self):
        """The next whole sequence of the reader as a slot, or None at the end of the data."""
        position = self._source.get_plain_state()
        streams, sweep_end = self._source.read_sequences(1)
        if streams is None:
            return None
        self._ordinal += 1
        return _Slot(streams, self._ordinal - 1, position, sweep_end)

    def next(self, minibatch_size, parts=1, part=0):
        """(stream name -> SequenceData of the pieces, whether the last piece of a sweep is among them,
        which pieces start a sequence, the slot of each piece) of this worker's share of a minibatch of
        ``minibatch_size`` samples (all workers')."""
        num_slots = max(1, minibatch_size // self._length)
        if parts > num_slots:
            raise ValueError('Too many workers for minibatch size; please increase minibatch size or decrease '
                             'number of workers.')
        num_slots = num_slots // parts + (1 if part < num_slots % parts else 0)
        self._slots.extend([None] * (num_slots - len(self._slots)))
        pieces, starts, slots, sweep_end = [], [], [], False
        for i in range(num_slots):
            filled = 0
            while filled < self._length:
                slot = self._slots[i]
                if slot is None or not slot.live:
                    slot = self._slots[i] = self._pull()
                    if slot is None:
                        break
                take = min(self._length - filled, slot.length - slot.offset)
                pieces.append((slot, slot.offset, slot.offset + take))
                starts.append(slot.offset == 0)
                slots.append(i)
                slot.offset += take
                filled += take
                sweep_end |= slot.ends_sweep and not slot.live
        if not pieces:
            return None, False, None, None
        names = pieces[0][0].streams.keys()
        streams = {name: SequenceData.from_sequences([s.streams[name].rows[lo:hi] for s, lo, hi in pieces])
                   for name in names}
        return streams, sweep_end, np.array(starts, bool), np.array(slots, np.int64)

    # ------------------------------------------------------------------ checkpoints
    def get_state(self):
        """The reader position before the oldest sequence still in a slot, and per slot which sequence
        (counted from that one) it holds and how many of its samples were delivered."""
        live = [s for s in self._slots if s is not None and s.live]
        if not live:
            return dict(base=self._source.get_plain_state(), slots=[None] * len(self._slots))
        oldest = min(live, key=lambda s: s.ordinal)
        return dict(base=dict(oldest.position),
                    slots=[[s.ordinal - oldest.ordinal, s.offset] if s is not None and s.live else None
                           for s in self._slots])

    def set_state(self, state):
        try:
            base, slots = state['base'], list(state['slots'])
            wanted = {int(entry[0]): (i, int(entry[1])) for i, entry in enumerate(slots) if entry is not None}
        except (KeyError, TypeError, IndexError, ValueError):
            raise ValueError('not a truncated-reading checkpoint state: %r' % (state,))
        self._source.set_plain_state(base)
        self._slots, self._ordinal = [None] * len(slots), 0
        while wanted and self._ordinal <= max(wanted):
            slot = self._pull()
            if slot is None:
                raise ValueError('the checkpoint refers to sequences beyond the end of the data')
            if slot.ordinal in wanted:
                index, slot.offset = wanted[slot.ordinal]
                self._slots[index] = slot
