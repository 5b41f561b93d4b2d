"""nce_loss and random_sample_inclusion_frequency against CNTK 2.7's numbers (values printed by CNTK 2.7 for
the same graphs and seeds)."""
import numpy as np
import pytest
import scipy.sparse

import cntk as C

CLASSES, XDIM, BATCH = 20, 5, 3
LABELS = [3, 7, 11]


def _nce_setup():
    x = C.input_variable(XDIM, needs_gradient=True)
    y = C.input_variable(CLASSES, is_sparse=True)
    x0 = np.arange(BATCH * XDIM, dtype=np.float32).reshape((BATCH, XDIM)) / (BATCH * XDIM)
    y0 = scipy.sparse.csr_matrix((np.ones(BATCH, np.float32), LABELS, list(range(BATCH + 1))),
                                 shape=(BATCH, CLASSES))
    b = C.parameter((CLASSES, 1), init=-np.log(CLASSES))
    W = C.parameter((CLASSES, C.InferredDimension), init=C.glorot_uniform(seed=98052))
    q = np.arange(CLASSES, dtype=np.float32) + 1
    return x, y, x0, y0, W, b, q


# three consecutive evaluations (a new set of noise samples each), as CNTK 2.7 prints them
NCE_EVALS = {
    True: [[1.5003575, 2.2641206, 2.1133301], [-0.17359126, 0.26229334, -0.14580369],
           [0.99869287, 1.7116628, 1.5226562]],
    False: [[1.3366855, 2.0701647, 1.8876412], [0.17875755, 0.76585627, 0.5249398],
            [2.3745866, 2.9832978, 2.673466]],
}


@pytest.mark.parametrize("allow_duplicates", [True, False])
def test_nce_loss_values_are_cntks(allow_duplicates):
    x, y, x0, y0, W, b, q = _nce_setup()
    loss = C.nce_loss(W, b, x, y, q, num_samples=5, allow_duplicates=allow_duplicates, seed=98052)
    got = [loss.eval({x: x0, y: y0}) for _ in range(3)]
    # the expected noise log-count replaces the drawn one, so a loss value may be negative
    np.testing.assert_allclose(got, NCE_EVALS[allow_duplicates], rtol=1e-5, atol=1e-5)


def test_nce_loss_gradient_is_cntks():
    x, y, x0, y0, W, b, q = _nce_setup()
    loss = C.nce_loss(W, b, x, y, q, num_samples=5, seed=98052)
    g, v = loss.grad({x: x0, y: y0}, wrt=[x], outputs=[loss.output])
    np.testing.assert_allclose(v, [1.50036, 2.26412, 2.11333], atol=1e-5)
    np.testing.assert_allclose(g, [[0.31316, -0.01269, 0.04269, 0.23218, -0.57206],
                                   [0.23812, 0.41721, -0.00522, 0.60645, -0.66091],
                                   [0.30283, 0.00801, 0.07764, 0.16513, -0.61127]], atol=1e-5)


def test_inclusion_frequency_without_replacement_is_cntks_seeded_estimate():
    # CNTK estimates the number of draws its rejection sampler needs from 10 seeded runs: the estimate
    # depends on the seed, and a node gives the same value on every evaluation
    q = np.arange(20, dtype=np.float32) + 1
    expected = {3: [0.025911, 0.051271, 0.076088], 5: [0.027769, 0.054895, 0.08139],
                11: [0.026376, 0.052178, 0.077416], 98052: [0.028697, 0.056703, 0.08403],
                123456: [0.027305, 0.053991, 0.080067]}
    for seed, first in expected.items():
        node = C.random_sample_inclusion_frequency(q, 5, False, seed=seed)
        for _ in range(2):
            np.testing.assert_allclose(node.eval()[:3], first, atol=1e-6)
    # the weights need not be normalized
    np.testing.assert_allclose(C.random_sample_inclusion_frequency(q / q.sum(), 5, False, seed=98052).eval()[-1],
                               0.456926, atol=1e-6)
