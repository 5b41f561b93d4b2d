"""``SequenceData``: the sequences of one stream, stored as all samples stacked plus offsets.

Dense rows are an ndarray (samples, *sample_shape); sparse rows a scipy CSR matrix (samples, dim).
Sequence i is rows[offsets[i]:offsets[i+1]].  Selection and concatenation are vectorized.
"""
import numpy as np
import scipy.sparse as sp


class SequenceData(object):
    __slots__ = ('rows', 'offsets')

    def __init__(self, rows, offsets):
        self.rows = rows
        self.offsets = np.asarray(offsets, dtype=np.int64)

    @staticmethod
    def from_lengths(rows, lengths):
        offsets = np.zeros(len(lengths) + 1, np.int64)
        np.cumsum(lengths, out=offsets[1:])
        return SequenceData(rows, offsets)

    @staticmethod
    def from_sequences(seqs):
        """From a list of per-sequence arrays (samples, ...) or CSR matrices."""
        lengths = [s.shape[0] for s in seqs]
        rows = sp.vstack(seqs, format='csr') if sp.issparse(seqs[0]) else np.concatenate(seqs)
        return SequenceData.from_lengths(rows, lengths)

    @property
    def is_sparse(self):
        return sp.issparse(self.rows)

    @property
    def lengths(self):
        return np.diff(self.offsets)

    def __len__(self):
        return len(self.offsets) - 1

    def take(self, indices):
        """The sequences at ``indices`` (in that order)."""
        indices = np.asarray(indices, dtype=np.int64)
        starts = self.offsets[indices]
        lengths = self.offsets[indices + 1] - starts
        total = int(lengths.sum())
        new_offsets = np.zeros(len(indices) + 1, np.int64)
        np.cumsum(lengths, out=new_offsets[1:])
        rows = np.repeat(starts - new_offsets[:-1], lengths) + np.arange(total, dtype=np.int64)
        return SequenceData(self.rows[rows], new_offsets)

    def slice(self, lo, hi):
        """Sequences lo..hi-1 (a view of the rows)."""
        a, b = self.offsets[lo], self.offsets[hi]
        rows = _csr_row_view(self.rows, a, b) if self.is_sparse else self.rows[a:b]
        return SequenceData(rows, self.offsets[lo:hi + 1] - a)

    def split_frames(self):
        """Every sample as a sequence of its own."""
        return SequenceData(self.rows, np.arange(self.rows.shape[0] + 1, dtype=np.int64))

    def sequences(self):
        """List of per-sequence arrays (views) or CSR matrices."""
        return [self.rows[a:b] for a, b in zip(self.offsets[:-1], self.offsets[1:])]

    @staticmethod
    def concat(parts):
        if len(parts) == 1:
            return parts[0]
        rows = [p.rows for p in parts]
        rows = sp.vstack(rows, format='csr') if sp.issparse(rows[0]) else np.concatenate(rows)
        lengths = np.concatenate([p.lengths for p in parts])
        return SequenceData.from_lengths(rows, lengths)


def _csr_row_view(m, a, b):
    """Rows a..b-1 of the CSR matrix ``m`` sharing its values and indices (scipy's slicing copies them)."""
    m = m.tocsr()
    lo, hi = m.indptr[a], m.indptr[b]
    return sp.csr_matrix((m.data[lo:hi], m.indices[lo:hi], m.indptr[a:b + 1] - lo), shape=(b - a, m.shape[1]),
                         copy=False)
