"""One-hot records (core/one_hot.py): CSR one-hot data users feed is recognized, in one pass, and recorded."""
import numpy as np
import scipy.sparse as sp
import torch

import cntk as C
from cntk_compat.core.feeding import to_value
from cntk_compat.core.one_hot import csr_one_hot_columns, recorded_one_hot_columns


def _one_hot_csr(columns, classes=5):
    rows = len(columns)
    kept = [k for k, c in enumerate(columns) if c >= 0]
    indptr = np.zeros(rows + 1, np.int64)
    indptr[1:] = np.cumsum([1 if c >= 0 else 0 for c in columns])
    return sp.csr_matrix((np.ones(len(kept), np.float32), [columns[k] for k in kept], indptr), shape=(rows, classes))


def test_columns_of_csr_sequences_padded_per_sequence():
    mats = [_one_hot_csr([1, 4, -1]), _one_hot_csr([0]), _one_hot_csr([])]
    np.testing.assert_array_equal(csr_one_hot_columns(mats, 4), [[1, 4, -1, -1], [0, -1, -1, -1], [-1] * 4])
    weighted = [_one_hot_csr([1]) * 2]
    assert csr_one_hot_columns(weighted, 1) is None
    assert csr_one_hot_columns([sp.csr_matrix(np.array([[1, 1, 0]], np.float32))], 1) is None
    assert csr_one_hot_columns([sp.coo_matrix(np.eye(2))], 2) is None
    assert csr_one_hot_columns([], 3).shape == (0, 3)


def test_fed_csr_sequences_and_batches_are_recorded():
    s = C.sequence.input_variable(5, is_sparse=True)
    v = to_value(s, [_one_hot_csr([1, 4]), _one_hot_csr([3])], torch.device("cpu"))
    columns, every_row = recorded_one_hot_columns(v.tensor)
    assert columns.tolist() == [1, 4, 3, -1] and not every_row
    x = C.input_variable(5, is_sparse=True)
    v = to_value(x, _one_hot_csr([2, 0, 4]), torch.device("cpu"))
    columns, every_row = recorded_one_hot_columns(v.tensor)
    assert columns.tolist() == [2, 0, 4] and every_row
    v = to_value(x, [_one_hot_csr([2]), _one_hot_csr([3])], torch.device("cpu"))
    assert recorded_one_hot_columns(v.tensor)[0].tolist() == [2, 3]
    assert recorded_one_hot_columns(to_value(s, [_one_hot_csr([1]) * 2], torch.device("cpu")).tensor) is None


def test_a_recorded_csr_feed_computes_the_dense_product():
    s = C.sequence.input_variable(5, is_sparse=True)
    w = np.arange(15, dtype=np.float32).reshape(5, 3)
    seqs = [_one_hot_csr([1, 4, -1]), _one_hot_csr([3])]
    out = C.times(s, w).eval({s: seqs})
    for got, m in zip(out, seqs):
        np.testing.assert_array_equal(got, m.toarray() @ w)
