"""grad/backward with as_numpy=False hand out a Parameter's gradient as a sparse Value where CNTK 2.7 does: when
every use of the parameter is the right operand of times with a sparse left operand (the rows it selects),
possibly through reshape; otherwise dense."""
import numpy as np
import scipy.sparse

import cntk as C


def _sparse_rows(batch, classes):
    return scipy.sparse.csr_matrix((np.ones(batch, np.float32), list(range(1, batch + 1)), list(range(batch + 1))),
                                   shape=(batch, classes))


def test_rows_picked_by_a_sparse_operand_have_a_sparse_gradient():
    y = C.input_variable(10, is_sparse=True)
    W = C.parameter((10, 3), init=1.0)
    b = C.parameter((10, 1), init=0.5)
    out = C.times(y, W) + C.times(y, C.reshape(b, (-1,)), output_rank=0)
    g = out.grad({y: _sparse_rows(2, 10)}, wrt=[W, b], as_numpy=False)
    assert g[W].is_sparse and g[b].is_sparse
    # the values are the gradient all the same: rows 1 and 2 were picked once each
    expected = np.zeros((10, 3), np.float32)
    expected[1:3] = 1
    # (asarray of a sparse matrix is a CSR matrix, as in CNTK)
    assert np.array_equal(g[W].asarray().toarray(), expected)


def test_a_dense_use_makes_the_gradient_dense():
    y = C.input_variable(10, is_sparse=True)
    x = C.input_variable(10)
    W = C.parameter((10, 3), init=1.0)
    out = C.times(y, W) + C.times(x, W)
    g = out.grad({y: _sparse_rows(2, 10), x: np.ones((2, 10), np.float32)}, wrt=[W], as_numpy=False)
    assert not g.is_sparse  # one wrt: the Value itself
    dense = C.times(x, W)
    assert not dense.grad({x: np.ones((2, 10), np.float32)}, wrt=[W], as_numpy=False).is_sparse


def test_nce_loss_gradients_are_sparse():
    # CNTK 2.7's losses_test.py::test_nce_loss checks this
    x = C.input_variable(5, needs_gradient=True)
    y = C.input_variable(20, is_sparse=True)
    b = C.parameter((20, 1), init=-np.log(20))
    W = C.parameter((20, C.InferredDimension), init=C.glorot_uniform(seed=98052))
    loss = C.nce_loss(W, b, x, y, np.arange(20, dtype=np.float32) + 1, num_samples=4, seed=98052)
    g = loss.grad({x: np.ones((2, 5), np.float32), y: _sparse_rows(2, 20)}, wrt=loss.parameters, as_numpy=False)
    assert all(v.is_sparse for v in g.values())
