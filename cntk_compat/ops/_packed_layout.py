"""CNTK's minibatch layout of sequences: the sequences packed, in the minibatch's order, into parallel slots as
long as the longest one, each into the first slot whose free end holds it (a new slot when none does), laid out
time-major (column t * slots + slot) with the gaps. CNTK's readers and Value.create pack alike; ops whose results
depend on that layout (dropout masks, ranking groups, the weighted logistic's column count) follow it."""
import torch


def packed_slots(lengths):
    """(slot, start) of each sequence of the given lengths, the number of slots and their length."""
    steps = max(lengths, default=0)
    used, places = [], []
    for n in lengths:
        slot = next((s for s, u in enumerate(used) if u + n <= steps), len(used))
        if slot == len(used):
            used.append(0)
        places.append((slot, used[slot]))
        used[slot] += n
    return places, len(used), steps


def packed_columns(mask):
    """For a (B, T) bool mask of valid steps: the column of each valid step (in mask order) and the number of
    columns of the layout."""
    places, slots, steps = packed_slots(mask.sum(1).tolist())
    starts = torch.tensor([p[1] for p in places], dtype=torch.int64, device=mask.device)
    slot_of = torch.tensor([p[0] for p in places], dtype=torch.int64, device=mask.device)
    t = torch.arange(mask.shape[1], device=mask.device)
    columns = (starts[:, None] + t[None, :]) * slots + slot_of[:, None]
    return columns[mask], steps * slots
