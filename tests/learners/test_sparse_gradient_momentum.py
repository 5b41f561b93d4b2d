"""Momentum SGD and AdaGrad on the sparse gradients CNTK computes for a parameter reached only as the right
operand of products with sparse data (an Embedding of sparse input, times(one_hot, W)): CNTK 2.7 decays, adds
and applies the smoothed gradient only in the rows the minibatch touched; the others keep theirs, unapplied.
Golden values from CNTK 2.7 (CPU); the same graphs fed dense data update every row, as before."""
import numpy as np
import pytest

import cntk as C


def _train(sparse, learner, classes=(0, 1, 1)):
    x = C.input_variable(4, is_sparse=sparse)
    W = C.parameter((4, 2), init=0)
    loss = C.reduce_sum(C.times(x, W))
    trainer = C.Trainer(loss, (loss, None), [learner([W])])
    for k in classes:
        trainer.train_minibatch({x: C.Value.one_hot([[k]], 4) if sparse else np.eye(4, dtype=np.float32)[[k]]})
    return W.value[:, 0].tolist()


LR, M = C.learning_parameter_schedule(0.1), C.momentum_schedule(0.5)
CASES = {
    "plain": (lambda p: C.momentum_sgd(p, LR, M, unit_gain=False), [-0.1, -0.25], [-0.175, -0.25]),
    "unit_gain": (lambda p: C.momentum_sgd(p, LR, M, unit_gain=True), [-0.05, -0.125], [-0.0875, -0.125]),
    "clipped": (lambda p: C.momentum_sgd(p, LR, M, unit_gain=False, gradient_clipping_threshold_per_sample=0.05),
                [-0.005, -0.0125], [-0.00875, -0.0125]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_momentum_sgd_moves_only_the_touched_rows_of_a_sparse_gradient(case):
    learner, sparse_golden, dense_golden = CASES[case]
    np.testing.assert_allclose(_train(True, learner), sparse_golden + [0, 0], rtol=1e-6)
    np.testing.assert_allclose(_train(False, learner), dense_golden + [0, 0], rtol=1e-6)


def test_embedding_of_sparse_sequences_inside_its_block():
    x = C.sequence.input_variable(5, is_sparse=True)
    e = C.layers.Embedding(2, init=0.5)(x)
    loss = C.sequence.reduce_sum(C.reduce_sum(e * C.constant(np.array([1., -2.], np.float32))))
    trainer = C.Trainer(loss, (loss, None), [C.momentum_sgd(e.parameters, LR, M, unit_gain=False)])
    for seq in ([0, 2], [1], [1, 3]):
        trainer.train_minibatch({x: C.Value.one_hot([seq], 5)})
    np.testing.assert_allclose(e.parameters[0].value, [[0.4, 0.7], [0.25, 1.0], [0.4, 0.7], [0.4, 0.7], [0.5, 0.5]],
                               rtol=1e-6)


def test_a_parameter_also_used_densely_keeps_dense_momentum():
    from cntk_compat.train.trainer import sparse_gradient_parameters
    x = C.input_variable(4, is_sparse=True)
    h = C.input_variable(2)
    W = C.parameter((4, 2), init=0)
    V = C.parameter((4, 2), init=0)
    loss = C.reduce_sum(C.times(x, W)) + C.reduce_sum(C.times(x, V)) + C.reduce_sum(C.times_transpose(V, h))
    assert sparse_gradient_parameters(loss.output, [W, V]) == {W: 1}


@pytest.mark.parametrize("sparse, ave, golden", [
    # CNTK 2.7 (CPU): CPUSparseMatrix::Adagrad accumulates and moves only the touched rows, and averages the
    # multiplier over their values; the dense path averages over all values (1e8 where nothing accumulated yet,
    # which all but stops the step: the zeros)
    (True, True, [[0.222222, -0.222222], [0.31427, -0.31427], [0.130175, -0.130175], [0, 0]]),
    (True, False, [[0.1, -0.1], [0.135355, -0.135355], [0.05, -0.05], [0, 0]]),
    (False, True, [[0, 0], [0, 0], [0, 0], [0, 0]]),
    (False, False, [[0.1, -0.1], [0.135355, -0.135355], [0.05, -0.05], [0, 0]]),
])
def test_adagrad_on_a_sparse_gradient_as_cntk(sparse, ave, golden):
    x = C.input_variable(4, is_sparse=sparse)
    W = C.parameter((4, 2), init=0)
    loss = C.reduce_sum(C.times(C.times(x, W), C.constant(np.array([[1., -3.], [2., 0.5]], np.float32))))
    trainer = C.Trainer(loss, (loss, None), [C.adagrad([W], LR, need_ave_multiplier=ave)])
    for k in ([0], [1], [1, 2]):
        trainer.train_minibatch({x: C.Value.one_hot([[i] for i in k], 4) if sparse else np.eye(4, dtype=np.float32)[k]})
    np.testing.assert_allclose(W.value, golden, rtol=1e-5, atol=1e-6)
