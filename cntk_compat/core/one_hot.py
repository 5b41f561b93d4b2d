"""Where the 1s of a batch of one-hot samples are, as their producer knew it.

A sparse input is held densely (batch-first, padded). ``times`` of such an input picks rows of its right operand
(ops/linear.py), and to do that it must first find the input's nonzeros: a pass over the whole dense batch (about
0.2 ms for 700 words of a 300-word vocabulary on one CPU thread, several times the lookup itself). The producers
of one-hot data (``Value.one_hot``, CSR sequences from users and readers) know the columns already; they record
them on the tensor they make, and ``times`` reads them instead of searching. The record is the column of each
row's single 1 (-1 for a row of zeros: padding, or a skipped sample); it holds while the tensor is unchanged (its
version counter). A copy of the recorded tensor on another device or in another float dtype, made when it is fed,
takes the record along (``carry_one_hot_record``); any other tensor derived from it (reshaped, computed) carries
no record, and ``times`` searches its nonzeros as before.
"""
import numpy as np
import scipy.sparse as sparse
import torch

from .device import copy_to

_ATTRIBUTE = "_cntk_one_hot_columns"


def record_one_hot_columns(tensor, columns):
    """Records on ``tensor`` (rows of ``tensor.shape[-1]`` classes) that each row is all zeros except for one 1,
    in column ``columns[...]`` (an integer array of ``tensor.shape[:-1]``; -1: the row is all zeros)."""
    columns = np.asarray(columns, dtype=np.int64).reshape(-1)
    if columns.size != tensor.numel() // max(1, tensor.shape[-1]):
        raise ValueError("one-hot columns: %d rows recorded for a tensor of shape %s"
                         % (columns.size, tuple(tensor.shape)))
    rows = np.flatnonzero(columns >= 0)
    every_row = rows.size == columns.size
    # the rows that have their 1, found here on the host: on a GPU, finding them there would wait for the device
    present = None if every_row else (torch.from_numpy(rows), torch.from_numpy(columns[rows]))
    return _store(tensor, torch.from_numpy(columns), every_row, present)


def _store(tensor, columns, every_row, present):
    """Sets the record (its tensors moved to ``tensor``'s device) on ``tensor``, valid for its current version."""
    present = None if present is None else tuple(copy_to(t, tensor.device) for t in present)
    setattr(tensor, _ATTRIBUTE, (copy_to(columns, tensor.device), every_row, tensor._version, present))
    return tensor


def _record(tensor):
    record = getattr(tensor, _ATTRIBUTE, None)
    if record is None or record[2] != tensor._version or record[0].device != tensor.device:
        return None
    return record


def carry_one_hot_record(source, moved):
    """``moved`` (``source`` converted to another device or dtype: the same 0s and 1s) with ``source``'s record,
    if it has one and ``moved`` is a float tensor (what ``times`` reads the record of)."""
    record = _record(source)
    if record is not None and moved is not source and moved.is_floating_point():
        _store(moved, record[0], record[1], record[3])
    return moved


def recorded_one_hot_columns(tensor):
    """(columns of the flattened rows, whether every row has its 1) as recorded on ``tensor`` while it is
    unchanged, else None."""
    record = _record(tensor)
    return None if record is None else (record[0], record[1])


def recorded_present_rows(tensor):
    """(flattened rows that have their 1, their columns) as recorded on ``tensor`` while it is unchanged; None
    where every row has its 1, or nothing is recorded."""
    record = _record(tensor)
    return None if record is None else record[3]


def csr_one_hot_columns(matrices, steps):
    """(len(matrices), steps) columns of the single 1 of each row of CSR sequences (-1 past a sequence's end and
    for empty rows), or None when a row holds more than one entry or a value other than 1 (or a matrix is not
    CSR). One pass over all the sequences' entries at once."""
    csr_array = getattr(sparse, "csr_array", ())
    if not all(sparse.isspmatrix_csr(m) or isinstance(m, csr_array) for m in matrices):
        return None
    out = np.full((len(matrices), steps), -1, np.int64)
    if not matrices:
        return out
    lengths = np.fromiter((m.shape[0] for m in matrices), np.int64, len(matrices))
    if lengths.max() > steps:
        raise ValueError("one-hot columns: a sequence of %d rows is longer than the %d steps" % (lengths.max(), steps))
    counts = np.concatenate([np.diff(m.indptr) for m in matrices])
    if counts.size and counts.max() > 1:
        return None
    data = np.concatenate([m.data[:m.indptr[-1]] for m in matrices])
    if not np.all(data == 1):
        return None
    columns = np.full(counts.size, -1, np.int64)
    columns[counts == 1] = np.concatenate([m.indices[:m.indptr[-1]] for m in matrices])
    out[np.arange(steps)[None, :] < lengths[:, None]] = columns  # sequence after sequence, row-major
    return out
