"""Torch helpers for padded sequence batches: values (B, T, *shape) with a (B, T) bool mask. They live in the
core because the lowering's own rewrites (fused recurrences reading final states) pick steps as the sequence ops do."""
import numpy as np
import torch

from .device import copy_to


_HOST_LENGTHS = "_cntk_host_lengths"


class HostLengths(object):
    """A mask's sequence lengths as the host knows them: ``array`` (numpy int64), ``tensor`` (the same numbers as a
    CPU int64 tensor, made when first asked for), ``total`` and ``shortest`` (Python ints), ``full`` (every
    sequence spans the mask's steps)."""
    __slots__ = ("array", "_tensor", "total", "shortest", "full", "version")

    def __init__(self, array, steps, version):
        self.array, self._tensor, self.version = array, None, version
        self.total = int(array.sum())
        self.shortest = int(array.min()) if array.size else steps
        self.full = self.shortest == steps

    @property
    def tensor(self):
        if self._tensor is None:
            self._tensor = torch.from_numpy(self.array)
        return self._tensor


def record_host_lengths(mask, lengths):
    """Records on a (B, T) mask the sequence lengths it was made from, as the host knew them: the fused
    recurrences read these instead of counting the mask, which on a GPU makes the host wait for the device."""
    array = np.asarray(lengths, dtype=np.int64).reshape(-1)
    setattr(mask, _HOST_LENGTHS, HostLengths(array, mask.shape[1], mask._version))
    return mask


def host_lengths_record(mask):
    """The mask's HostLengths: the recorded one while the mask is unchanged, else counted (on a GPU, a wait for
    the device)."""
    record = getattr(mask, _HOST_LENGTHS, None)
    if record is not None and record.version == mask._version:
        return record
    return HostLengths(lengths_of(mask).cpu().numpy().astype(np.int64, copy=False), mask.shape[1], mask._version)


def host_lengths(mask):
    """The mask's sequence lengths as a CPU int64 tensor (see host_lengths_record)."""
    return host_lengths_record(mask).tensor


def host_mask(lengths, steps, device):
    """The (B, steps) bool mask of sequences of ``lengths`` (host numbers), made on the host and sent to
    ``device`` in one copy (copy_to: the host does not wait for the GPU), with the lengths recorded
    (record_host_lengths)."""
    n = np.asarray(lengths, dtype=np.int64).reshape(-1)
    mask = copy_to(torch.from_numpy(np.arange(steps)[None, :] < n[:, None]), device)
    return record_host_lengths(mask, n)


def expand_mask(mask, x):
    """The (B, T) mask reshaped to broadcast against x (B, T, *shape)."""
    return mask.reshape(tuple(mask.shape) + (1,) * (x.dim() - 2))


def lengths_of(mask):
    return mask.sum(1)


def mask_from_lengths(lengths, max_len):
    return torch.arange(max_len, device=lengths.device)[None, :] < lengths[:, None]


def pack_by_counts(values, counts):
    """Each position t of sequence b repeated counts[b, t] times, the kept elements packed to the front.

    values (B, T, *shape), counts (B, T) non-negative integers. Returns (packed (B, T', *shape), mask (B, T'))
    with T' the largest total count; fully vectorized.
    """
    b_size, t_size = counts.shape
    counts = counts.long()
    lengths = counts.sum(1)
    new_t = int(lengths.max()) if b_size else 0
    flat = torch.repeat_interleave(torch.arange(b_size * t_size, device=values.device), counts.reshape(-1))
    batch = flat // t_size
    starts = torch.cumsum(lengths, 0) - lengths
    within = torch.arange(flat.numel(), device=values.device) - starts[batch]
    picked = values.reshape((b_size * t_size,) + tuple(values.shape[2:]))[flat]
    out = values.new_zeros((b_size, new_t) + tuple(values.shape[2:]))
    out = out.index_put((batch, within), picked)
    return out, mask_from_lengths(lengths, new_t)


def gather_steps(x, index):
    """x[b, index[b, j]] for every b, j: index (B, J) long, clamped into range."""
    index = index.clamp(0, max(x.shape[1] - 1, 0))
    view = index.reshape(tuple(index.shape) + (1,) * (x.dim() - 2)).expand(tuple(index.shape) + tuple(x.shape[2:]))
    return torch.gather(x, 1, view)


def first_step(x, mask):
    """Each sequence's first step (B, *shape): sequence.first's computation."""
    return x[:, 0]


def last_step(x, mask):
    """Each sequence's last step (B, *shape): sequence.last's computation."""
    return gather_steps(x, (lengths_of(mask) - 1)[:, None])[:, 0]
