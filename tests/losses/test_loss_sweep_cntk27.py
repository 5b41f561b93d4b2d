"""Losses and metrics that differed from CNTK 2.7 in session 20's differential sweep of ops; the numbers and
exception types are CNTK 2.7's (CPU)."""
import numpy as np
import pytest

import cntk as C

DX = np.arange(12, dtype=np.float32).reshape(4, 3) % 5 - 1.5
DY = (np.arange(12, dtype=np.float32).reshape(4, 3) * 7 % 11) / 3 - 1


@pytest.mark.parametrize("shift, n, values, grad_x", [
    (2, 3, [[0.30151137709617615, -1.0, -0.968329668045044, 0.30151137709617615],
            [0.7742912769317627, 0.7475319504737854, 0.33549681305885315, 0.7742912769317627],
            [-0.4545454680919647, 0.42211589217185974, -0.2747740149497986, -0.4545454680919647],
            [0.7142857313156128, 0.5941603779792786, 0.6625413298606873, 0.7142857313156128]],
     [[-0.41323840618133545, 1.000346302986145, -0.23936885595321655],
      [0.26347115635871887, -0.07820747047662735, 0.13312532007694244],
      [1.140143632888794, 1.220075011253357, -0.02664373070001602],
      [0.4180791676044464, 0.8085833191871643, -0.3353542685508728]]),
    (0, 1, [[0.30151137709617615] * 2, [0.7742912769317627] * 2, [-0.4545454680919647] * 2, [0.7142857313156128] * 2],
     [[-0.39470577239990234, 1.0744768381118774, -0.10964050143957138],
      [0.33982011675834656, -0.12189199030399323, 0.13666680455207825],
      [0.9256198406219482, 0.5289255976676941, 0.1322314441204071],
      [0.16326528787612915, 0.359183669090271, -0.2612244784832001]]),
])
def test_cosine_negatives_are_consecutive_columns_from_the_shift(shift, n, values, grad_x):
    # the k-th negative of sample c is sample (c + shift + k - 1) mod N (not c + k * shift); a shift of 0 computes
    x = C.input_variable(3, needs_gradient=True)
    y = C.input_variable(3)
    f = C.losses.cosine_distance_with_negative_samples(x, y, shift, n)
    np.testing.assert_allclose(f.eval({x: DX, y: DY}), values, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(f.grad({x: DX, y: DY}, wrt=[x]), grad_x, rtol=1e-5, atol=1e-6)


def test_cosine_negatives_of_sequences_follow_the_packed_layout():
    # samples are the columns of CNTK's packed layout, gaps included (a gap's cosine is 0)
    x = C.sequence.input_variable(3)
    y = C.sequence.input_variable(3)
    f = C.losses.cosine_distance_with_negative_samples(x, y, 1, 1)
    got = f.eval({x: [DX[:2], DX[1:4]], y: [DY[:2], DY[1:4]]})
    expected = [[[0.30151137709617615, -0.9813358187675476], [0.7742912769317627, 0.7816608548164368]],
                [[0.7742912769317627, 0.7742912769317627], [-0.4545454680919647, 0.0],
                 [0.7142857313156128, -0.9127665758132935]]]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)


def test_cosine_distance_of_rank0_samples():
    s, t = C.input_variable(()), C.input_variable(())
    f = C.cosine_distance(s, t)
    assert f.shape == ()
    np.testing.assert_allclose(f.eval({s: np.array([2., -3.], np.float32), t: np.array([0.5, 4.], np.float32)}),
                               [1.0, -1.0])


@pytest.mark.parametrize("static", [lambda: C.parameter(3, init=0.5), lambda: C.constant(np.ones(3, np.float32))])
def test_cosine_distance_of_minibatch_data_and_a_static_operand_is_refused(static):
    with pytest.raises(RuntimeError):
        C.cosine_distance(C.input_variable(3), static())


def test_cosine_distance_of_different_shapes_is_a_runtime_error():
    with pytest.raises(RuntimeError):
        C.cosine_distance(C.input_variable(3), C.input_variable(4))


def test_evaluation_only_criteria_refuse_gradients():
    z = C.input_variable(4, needs_gradient=True)
    y = C.input_variable(4)
    f = C.classification_error(z, y, topN=2)
    d = {z: np.array([[1, 2, 3, 4], [4, 3, 2, 1]], np.float32), y: np.eye(4, dtype=np.float32)[[0, 1]]}
    assert f.eval(d) == 1
    with pytest.raises(RuntimeError, match="ClassificationError operation is used for evaluation only"):
        f.grad(d, wrt=[z])
    o = C.input_variable(1, needs_gradient=True)
    g, q = C.input_variable(1), C.input_variable(1)
    n = C.metrics.ndcg_at_1(o, g, q)
    data = {o: np.array([[0.1], [0.9]], np.float32), g: np.array([[1], [0]], np.float32),
            q: np.array([[0], [0]], np.float32)}
    with pytest.raises(RuntimeError, match="NDCG1Eval operation is used for evaluation only"):
        n.grad(data, wrt=[o])


def test_classification_error_top_n_beyond_the_classes():
    with pytest.raises(ValueError):
        C.classification_error(C.input_variable(4), C.input_variable(4), topN=5)


@pytest.mark.parametrize("axis, error", [(None, RuntimeError), (-1, RuntimeError), (0, ValueError)])
def test_cross_entropy_of_rank0_samples(axis, error):
    kw = {} if axis is None else {"axis": axis}
    with pytest.raises(error):
        C.cross_entropy_with_softmax(C.input_variable(()), C.input_variable(()), **kw)


@pytest.mark.parametrize("reduce", [C.reduce_sum, C.reduce_max, C.reduce_log_sum_exp, C.reduce_l2, C.argmax])
def test_reduction_axes_of_a_rank0_operand(reduce):
    for axis in (-1, -2):
        with pytest.raises(RuntimeError):
            reduce(C.input_variable(()), axis=axis)
    with pytest.raises(ValueError):
        reduce(C.input_variable(()), axis=0)


def test_cosine_negatives_sizes():
    x = C.input_variable(3)
    with pytest.raises(NotImplementedError):
        C.losses.cosine_distance_with_negative_samples(x, x, -1, 2)
    f = C.losses.cosine_distance_with_negative_samples(x, x, 1, 0)   # only the sample's own cosine
    assert f.shape == (1,)


def test_nce_loss_lists_its_inputs_before_its_labels():
    x = C.input_variable(3, name='x')
    y = C.input_variable(5, is_sparse=True, name='y')
    h = C.layers.Dense(3)(C.input_variable(4, name='raw'))
    for inputs, names in ((x, ['x', 'y']), (h, ['raw', 'y'])):
        f = C.losses.nce_loss(C.parameter((5, 3), init=0.1), C.parameter((5, 1), init=0.0), inputs, y,
                              np.arange(1, 6, dtype=np.float32), num_samples=3, seed=2, name='nce')
        assert [a.name for a in f.arguments] == names and f.name == 'nce'
