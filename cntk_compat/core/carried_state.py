"""Truncated back-propagation through time: past_value state carried from one forward call to the next.

As in CNTK, a batch of sequences may hold pieces of longer sequences. Each sequence sits in a parallel slot
(CNTK's parallel sequence index: the reader's slot, or the sequence's index in a Value built with
seq_starts). A sequence that does not start in this batch continues the last sequence of its slot in the
previous forward call of the same graph: its past_value reads the values its input had at the end of that
sequence instead of the initial state. The carried values are detached, so no gradient reaches the
previous batch.

SequenceSlots is the per-call information (built by the feeding side, passed to the lowered module beside
the masks). Data without it (plain arrays, readers without truncation_length) neither reads nor stores
carried values, so the common case runs nothing extra; CNTK stores after every call, here only calls with
start flags (a truncating reader, seq_starts) leave values for the next one.
CarriedState is owned by each past_value node of the graph, so it survives across the lowered modules
cached for different input signatures.
"""
import numpy as np
import torch

from .device import copy_to
from .native_errors import RuntimeValueError, announced


class SequenceSlots(object):
    """Per sequence of a batch: its parallel slot and whether it starts here.

    slots: ints (B,); starts: bools (B,). Only the first sequence of a slot can continue one; the last
    sequence of each slot is the one whose final values the next call continues from.
    """

    def __init__(self, slots, starts):
        slots = np.asarray(slots, dtype=np.int64).reshape(-1)
        starts = np.asarray(starts, dtype=bool).reshape(-1)
        if slots.shape != starts.shape:
            raise ValueError("sequence slots: %d slots given for %d start flags" % (len(slots), len(starts)))
        if len(slots) and slots.min() < 0:
            raise ValueError("sequence slots must be non-negative, got %s" % slots.tolist())
        first = np.zeros(len(slots), dtype=bool)
        first[np.unique(slots, return_index=True)[1]] = True
        last = np.zeros(len(slots), dtype=bool)
        last[len(slots) - 1 - np.unique(slots[::-1], return_index=True)[1]] = True
        late = np.flatnonzero(~starts & ~first)
        if len(late):
            raise ValueError("sequence %d continues a sequence but is not the first sequence of its slot %d; only "
                             "a slot's first sequence can continue one" % (late[0], slots[late[0]]))
        self.slots = slots
        self.starts = starts
        self.continuing = np.flatnonzero(~starts)   # rows whose history comes from the previous call
        self.last_rows = np.flatnonzero(last)       # rows whose final values the next call continues from
        self._on_device = {}

    def index_tensors(self, device):
        """(continuing rows, their slots, last rows, their slots) as int64 tensors on ``device``."""
        key = str(device)
        if key not in self._on_device:
            as_t = lambda a: copy_to(torch.as_tensor(a, dtype=torch.int64), device)
            self._on_device[key] = (as_t(self.continuing), as_t(self.slots[self.continuing]),
                                    as_t(self.last_rows), as_t(self.slots[self.last_rows]))
        return self._on_device[key]


class CarriedState(object):
    """The last time_step values of each slot's sequence at the end of the previous tracked forward call."""

    def __init__(self, describe):
        self.describe = describe    # names the delay in errors
        self.values = None          # (slots, time_step, *shape), detached
        self.present = np.zeros(0, dtype=np.int64)  # the slots that held a sequence

    def head(self, initial, slots):
        """initial (B, k, *shape), with the rows of continuing sequences replaced by their slot's carried values."""
        if not len(slots.continuing):
            return initial
        missing = slots.continuing[~np.isin(slots.slots[slots.continuing], self.present)]
        if len(missing):
            i = int(missing[0])
            # CNTK 2.7's RuntimeError (a ValueError here before)
            raise announced(RuntimeValueError, "No matching sequence found in the saved previous MBLayout to determine "
                            "the real tBegin from for a truncated sequence in the current MBLayout\n\n(cntk-compat: "
                            "%s: sequence %d does not start in this batch (its start flag is False), but the previous "
                            "forward call of this graph with start flags left no sequence in its slot %d to "
                            "continue; the first batch must start its sequences, and later ones use the same slots)"
                            % (self.describe, i, int(slots.slots[i])))
        rows, from_slots, _, _ = slots.index_tensors(initial.device)
        carried = self.values.index_select(0, from_slots).to(initial.dtype)
        if carried.shape[1:] != initial.shape[1:]:
            raise ValueError("%s: the carried state has shape %s per sequence, this batch needs %s"
                             % (self.describe, tuple(carried.shape[1:]), tuple(initial.shape[1:])))
        return initial.index_copy(0, rows, carried)

    def keep(self, full, mask, steps, slots):
        """Store, per slot, the ``steps`` values before the end of its last sequence.

        full: (B, steps + T, *shape), the head followed by the sequence's values; mask: (B, T) bool."""
        _, _, rows, to_slots = slots.index_tensors(full.device)
        ends = mask.sum(1).index_select(0, rows)
        index = ends[:, None] + torch.arange(steps, device=full.device)[None, :]
        picked = full.index_select(0, rows)
        picked = picked.gather(1, index.reshape(index.shape + (1,) * (full.dim() - 2)).expand(
            (len(rows), steps) + tuple(full.shape[2:])))
        num_slots = int(slots.slots.max()) + 1 if len(slots.slots) else 0
        values = picked.new_zeros((num_slots, steps) + tuple(full.shape[2:]))
        self.values = values.index_copy(0, to_slots, picked).detach()
        self.present = slots.slots[slots.last_rows]


def carried_state_of(node):
    """The CarriedState owned by the past_value node ``node`` (created on first use)."""
    state = node._carried_state
    if state is None:
        state = CarriedState("past_value%s (%s)" % (" '%s'" % node._name if node._name else "", node.uid))
        node._carried_state = state
    return state
