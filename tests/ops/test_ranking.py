"""lambda_rank and ndcg_at_1 against values CNTK 2.7 computed for the same inputs (forward values and the
gradient lambda_rank gives the scores)."""
import numpy as np
import pytest

import cntk as C

# (scores, gains, group ids) -> CNTK 2.7's lambda_rank, ndcg_at_1 and d lambda_rank / d scores
CASES = [
    # the first sample of a group is its "ideal" top: gains are not sorted by CNTK
    (([0.3, 0.9, 0.1], [1, 0, 2], [0, 0, 0]), 55.360527, 0.0, [0, 0, 0]),
    (([0.3, 0.9], [1, 2], [0, 0]), -32.634235, 400.0, [0, 0]),
    # two groups of three
    (([0.9, 0.3, 0.0, 0.4, 0.5, 0.3], [31, 7, 0, 3, 0, 0], [0, 0, 0, 1, 1, 1]), 110.72108, 300.0,
     [-0.2151242, 0.07760897, 0.1375152, -0.2559486, 0.1937542, 0.06219435]),
    (([0.1, 0.5, 0.2, 0.7], [3, 2, 1, 0], [0, 0, 0, 0]), 143.47089, 0.0,
     [-0.2720445, -0.07175428, -0.03837258, 0.3821714]),
    # an equal-gain pair is left out and the later pairs take the score differences one place early
    (([0.1, 0.5, 0.2, 0.7], [2, 2, 1, 0], [0, 0, 0, 0]), 121.07277, 0.0,
     [-0.1699343, -0.1059734, -0.03957571, 0.3154834]),
    # equal scores rank the smaller gain first
    (([0.5, 0.5, 0.2, 0.7], [2, 1, 1, 0], [0, 0, 0, 0]), 136.61415, 0.0,
     [-0.2059452, -0.02925513, -0.09055848, 0.3257588]),
    (([0.5, 0.5, 0.5], [0, 1, 2], [0, 0, 0]), 0.0, 0.0, [0, 0, 0]),
    (([0.5, 0.5, 0.5], [2, 1, 0], [0, 0, 0]), 114.02813, 0.0, [-0.2149297, -0.04525787, 0.2601875]),
    # no positive gain: NDCG 0, no gradient
    (([0.1, 0.2, 0.3], [0, 0, 0], [0, 0, 0]), 300.0, 0.0, [0, 0, 0]),
    # a group is a run of equal ids: 0, 1, 0, 1 are four groups
    (([0.1, 0.2, 0.3, 0.4], [1, 0, 2, 0], [0, 1, 0, 1]), 200.0, 200.0, [0, 0, 0, 0]),
    # ids are truncated to integers: 0.2 and 0.7 are one group
    (([0.1, 0.2, 0.3, 0.4], [1, 0, 2, 0], [0.2, 0.7, 1.9, 2.1]), 182.54271, 133.33334,
     [-0.1937542, 0.1937542, 0, 0]),
]


def _column(values, dtype=np.float32):
    return np.array(values, dtype).reshape(-1, 1)


@pytest.mark.parametrize("case, lambda_rank, ndcg, gradient", CASES)
def test_ranking_ops_give_cntk27s_values_and_gradient(case, lambda_rank, ndcg, gradient):
    s = C.input_variable(1, needs_gradient=True)
    g, q = C.input_variable(1), C.input_variable(1)
    feed = {s: _column(case[0]), g: _column(case[1]), q: _column(case[2])}
    lr = C.lambda_rank(s, g, q)
    np.testing.assert_allclose(lr.eval(feed), lambda_rank, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(C.ndcg_at_1(s, g, q).eval(feed), ndcg, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(np.ravel(lr.grad(feed, wrt=[s])), gradient, rtol=1e-5, atol=1e-7)


def test_lambda_rank_gradient_does_not_scale_with_the_output_gradient():
    # CNTK adds the LambdaRank update to the scores' gradient whatever reaches lambda_rank's output
    s = C.input_variable(1, needs_gradient=True)
    g, q = C.input_variable(1), C.input_variable(1)
    feed = {s: _column([0.3, 0.9, 0.1]), g: _column([3, 1, 0]), q: _column([0, 0, 0])}
    update = [-0.17995542, 0.08856474, 0.09139068]
    np.testing.assert_allclose(np.ravel(C.lambda_rank(s, g, q).grad(feed, wrt=[s])), update, rtol=1e-5)
    np.testing.assert_allclose(np.ravel((C.lambda_rank(s, g, q) * 5).grad(feed, wrt=[s])), update, rtol=1e-5)
    both = C.lambda_rank(s, g, q) + C.reduce_sum(s * s)  # the sum broadcasts lambda_rank over the batch
    np.testing.assert_allclose(np.ravel(both.grad(feed, wrt=[s])), [0.4200446, 1.8885647, 0.2913907], rtol=1e-5)


def test_ranking_ops_in_double_precision():
    s = C.input_variable(1, dtype=np.float64, needs_gradient=True)
    g, q = C.input_variable(1, dtype=np.float64), C.input_variable(1, dtype=np.float64)
    feed = {s: _column([0.3, 0.9, 0.1], np.float64), g: _column([3, 1, 0], np.float64), q: np.zeros((3, 1))}
    np.testing.assert_allclose(C.lambda_rank(s, g, q).eval(feed), 60.98772570284804, rtol=1e-12)
    np.testing.assert_allclose(C.ndcg_at_1(s, g, q).eval(feed), 100.0, rtol=1e-12)


@pytest.mark.parametrize("scores, gains, ids, lambda_rank, ndcg, gradient", [
    # padding counts: columns t0 = (a0, b0), t1 = (a1, b1), t2 = (a2, gap), the gap a zero sample of group 0
    ([[0.3, 0.9, 0.1], [0.5, 0.2]], [[3, 1, 0], [2, 0]], [[0, 0, 0], [1, 1]], 239.99997, 360.00003,
     [[0, 0, 0], [0, 0]]),
    ([[0.3, 0.9, 0.1], [0.5]], [[3, 1, 2], [2]], [[0, 0, 0], [0]], 98.88989, 200.00002,
     [[-0.19453862, 0.04895085, 0.02758878], [-0.10003772]]),
    ([[0.3, -0.9, -0.1], [-0.5]], [[3, 1, 2], [2]], [[0, 0, 0], [0]], 58.996582, 600.0,
     [[-0.32989049, -0.00231563, 0.03303177], [-0.04724772]]),
    # CNTK packs the third sequence behind the first: two rows of three steps, no gap
    ([[0.3, 0.9], [0.5, 0.1, 0.7], [0.2]], [[1, 2], [3, 0, 1], [2]], [[0, 0], [1, 1, 1], [0]], 100.00001,
     499.99997, [[0, 0], [0, 0, 0], [0]]),
])
def test_ranking_ops_over_sequences_read_cntks_packed_columns(scores, gains, ids, lambda_rank, ndcg, gradient):
    s = C.sequence.input_variable(1, needs_gradient=True)
    g, q = C.sequence.input_variable(1), C.sequence.input_variable(1)
    feed = {s: [_column(x) for x in scores], g: [_column(x) for x in gains], q: [_column(x) for x in ids]}
    lr = C.lambda_rank(s, g, q)
    np.testing.assert_allclose(lr.eval(feed), lambda_rank, rtol=1e-5)
    np.testing.assert_allclose(C.ndcg_at_1(s, g, q).eval(feed), ndcg, rtol=1e-5)
    grads = lr.grad(feed, wrt=[s])
    for ours, theirs in zip(grads, gradient):
        np.testing.assert_allclose(np.ravel(ours), theirs, rtol=1e-5, atol=1e-7)
