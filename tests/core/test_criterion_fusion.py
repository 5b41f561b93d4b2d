"""cross_entropy_with_softmax and classification_error lower to one fused call each (core.criterion_fusion): with
labels known one-hot (Value.one_hot, one-hot CSR) the loss runs as torch's cross_entropy, otherwise as the composed
ops; the values and gradients equal the composed ops' (fed the same labels densely) in either case."""
import numpy as np
import pytest
import torch

import cntk as C
from cntk_compat.core import criterion_fusion
from cntk_compat.core.engine import call_plan
from cntk_compat.core.one_hot import record_one_hot_columns


@pytest.fixture
def fast_path(monkeypatch):
    """The record the fused loss found on each call: None (composed ops), else whether every row had its 1."""
    seen = []
    look_up = criterion_fusion.recorded_one_hot_columns

    def spy(t):
        found = look_up(t)
        seen.append(None if found is None else found[1])
        return found
    monkeypatch.setattr(criterion_fusion, "recorded_one_hot_columns", spy)
    return seen


def _targets(f):
    return [n.target for module in call_plan(f.outputs).modules.values() for n in module.graph.nodes
            if n.op == "call_function"]


def _criterion(classes, dtype=np.float64, sequence=True):
    make = C.sequence.input_variable if sequence else C.input_variable
    x = make(4, dtype=dtype)
    y = make(classes, dtype=dtype, is_sparse=True)
    W = C.parameter((4, classes), init=C.glorot_uniform(seed=3), dtype=dtype)
    z = C.times(x, W)
    return x, y, W, C.combine([C.cross_entropy_with_softmax(z, y), C.classification_error(z, y)])


def _loss_metric_grad(f, W, feed):
    loss, metric = f.outputs
    out = f.eval(feed)
    grad = C.combine([loss]).grad(feed, wrt=[W])
    return out[loss], out[metric], grad


def _dense(labels, classes, dtype=np.float64):
    out = []
    for seq in labels:
        m = np.zeros((len(seq), classes), dtype)
        for k, c in enumerate(seq):
            if c >= 0:
                m[k, c] = 1
        out.append(m)
    return out


@pytest.mark.parametrize("lengths", [(5, 5, 5), (1, 6, 3)])
def test_one_hot_labels_equal_the_composed_ops_with_the_same_labels_dense(lengths, fast_path):
    rng = np.random.default_rng(0)
    classes = 7
    x, y, W, f = _criterion(classes)
    xs = [rng.standard_normal((n, 4)) * 3 for n in lengths]
    labels = [rng.integers(0, classes, n).tolist() for n in lengths]
    fused = _loss_metric_grad(f, W, {x: xs, y: C.Value.one_hot(labels, classes, dtype=np.float64)})
    assert fast_path == [len(set(lengths)) == 1] * 2  # padding rows are rows without a 1
    composed = _loss_metric_grad(f, W, {x: xs, y: _dense(labels, classes)})
    assert fast_path[2:] == [None, None]
    assert criterion_fusion.softmax_cross_entropy in _targets(f)
    assert criterion_fusion.classification_error in _targets(f)
    for a, b in zip(fused[0], composed[0]):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)
    for a, b in zip(fused[1], composed[1]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(fused[2], composed[2], rtol=1e-12, atol=1e-13)
    # the reference: log_sum_exp(z) - z[label], and whether argmax(z) misses the label
    Wv = W.value
    for xs_k, lab, loss, metric in zip(xs, labels, fused[0], fused[1]):
        z = xs_k @ Wv
        lse = np.log(np.exp(z).sum(1))
        np.testing.assert_allclose(loss[:, 0], lse - z[np.arange(len(lab)), lab], rtol=1e-12)
        np.testing.assert_array_equal(metric[:, 0], (z.argmax(1) != np.array(lab)).astype(np.float64))


def test_a_label_row_without_its_one_takes_log_sum_exp_as_the_composed_ops_do(fast_path):
    rng = np.random.default_rng(1)
    classes = 5
    x, y, W, f = _criterion(classes)
    xs = [rng.standard_normal((n, 4)) for n in (4, 2)]
    labels = [[1, C.Value.ONE_HOT_SKIP, 3, 0], [4, 2]]
    fused = _loss_metric_grad(f, W, {x: xs, y: C.Value.one_hot(labels, classes, dtype=np.float64)})
    composed = _loss_metric_grad(f, W, {x: xs, y: _dense([[1, -1, 3, 0], [4, 2]], classes)})
    assert fast_path == [False, False, None, None]
    for a, b in zip(fused[0], composed[0]):
        np.testing.assert_allclose(a, b, rtol=1e-13)
    for a, b in zip(fused[1], composed[1]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(fused[2], composed[2], rtol=1e-12, atol=1e-13)
    z = xs[0] @ W.value
    np.testing.assert_allclose(composed[0][0][1, 0], np.log(np.exp(z[1]).sum()), rtol=1e-12)
    assert composed[1][0][1, 0] == 1.0


def test_float32_one_hot_labels_without_a_sequence_axis(fast_path):
    rng = np.random.default_rng(2)
    classes = 10
    x, y, W, f = _criterion(classes, np.float32, sequence=False)
    xs = rng.standard_normal((8, 4)).astype(np.float32)
    labels = rng.integers(0, classes, 8)
    one_hot = record_one_hot_columns(torch.from_numpy(np.eye(classes, dtype=np.float32)[labels]), labels)
    fused = _loss_metric_grad(f, W, {x: xs, y: one_hot})
    assert fast_path == [True, True]
    composed = _loss_metric_grad(f, W, {x: xs, y: np.eye(classes, dtype=np.float32)[labels]})
    np.testing.assert_allclose(np.asarray(fused[0]).reshape(-1), np.asarray(composed[0]).reshape(-1), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(fused[1]).reshape(-1), np.asarray(composed[1]).reshape(-1))
    np.testing.assert_allclose(fused[2], composed[2], rtol=1e-5, atol=1e-6)


# float32 logits and their label where torch's float32 cross_entropy misses CNTK 2.7's loss by one ulp, and the
# loss CNTK 2.7 computes (its CPU log-sum-exp accumulates in double)
_CNTK27_ROWS = [
    ([4.873035907745361, -1.8352692127227783, -1.5845152139663696, -3.2189059257507324, 2.5962228775024414,
      -6.904615879058838, 5.234435081481934, -2.283620595932007, 0.9571172595024109, -0.7481111288070679], 3,
     9.034046173095703),
    ([4.386323928833008, -6.180422306060791, -0.9672515988349915, -1.152163028717041, 3.401308298110962,
      -3.2996737957000732, -0.517284631729126, -2.633575201034546, 0.12664124369621277, 1.7484456300735474], 9,
     3.0275769233703613),
    ([-3.3018574714660645, 3.434171199798584, 2.7047722339630127, 1.5074830055236816, 2.7025678157806396,
      -2.0511834621429443, -0.36867067217826843, -2.8073081970214844, -0.8036642670631409, 1.5910663604736328], 1,
     0.8378176689147949),
]


def test_float32_losses_against_dense_labels_are_cntk27s_to_the_bit():
    z = C.input_variable(10)
    y = C.input_variable(10)
    loss = C.cross_entropy_with_softmax(z, y)
    logits = np.array([r[0] for r in _CNTK27_ROWS], np.float32)
    labels = np.array([r[1] for r in _CNTK27_ROWS])
    one_hot = np.eye(10, dtype=np.float32)[labels]
    got = np.asarray(loss.eval({z: logits, y: one_hot})).reshape(-1)
    np.testing.assert_array_equal(got, np.array([r[2] for r in _CNTK27_ROWS], np.float32))


def test_soft_labels_keep_the_composed_loss_and_the_metric_its_gradient_with_respect_to_the_labels():
    rng = np.random.default_rng(3)
    classes = 4
    x = C.input_variable(3, dtype=np.float64)
    y = C.input_variable(classes, dtype=np.float64, needs_gradient=True)
    W = C.parameter((3, classes), init=C.glorot_uniform(seed=5), dtype=np.float64)
    z = C.times(x, W)
    loss, metric = C.cross_entropy_with_softmax(z, y), C.classification_error(z, y)
    xs = rng.standard_normal((6, 3))
    ys = rng.random((6, classes))  # labels that do not sum to 1: log_sum_exp(z) - y·z, as composed
    zs = xs @ W.value
    np.testing.assert_allclose(loss.eval({x: xs, y: ys})[:, 0] if loss.eval({x: xs, y: ys}).ndim == 2
                               else loss.eval({x: xs, y: ys}),
                               np.log(np.exp(zs).sum(1)) - (ys * zs).sum(1), rtol=1e-12)
    hard = np.eye(classes)[zs.argmax(1)]
    np.testing.assert_allclose(np.asarray(metric.eval({x: xs, y: ys})).reshape(-1), 1 - (hard * ys).sum(1),
                               rtol=1e-12)
    np.testing.assert_allclose(metric.grad({x: xs, y: ys}, wrt=[y]), -hard, rtol=1e-12)
    assert criterion_fusion.classification_error in _targets(metric)
    assert criterion_fusion.softmax_cross_entropy in _targets(loss)


def test_a_product_read_elsewhere_keeps_the_composed_ops():
    x = C.input_variable(3)
    y = C.input_variable(3)
    product = C.element_times(y, x)
    f = C.combine([C.reduce_log_sum_exp(x) - C.reduce_sum(product), product])
    out = f.eval({x: np.array([[1.0, 2.0, 3.0]], np.float32), y: np.array([[0, 1, 0]], np.float32)})
    assert criterion_fusion.softmax_cross_entropy not in _targets(f)
    np.testing.assert_allclose(list(out.values())[0].reshape(-1), [np.log(np.exp([1.0, 2, 3]).sum()) - 2], rtol=1e-6)


def _composed_loss(z, y, dim, keepdims):
    reduce = criterion_fusion._COMPUTATIONS["reduce"]
    return torch.sub(reduce(z, "log_sum_exp", (dim,), (), keepdims), reduce(torch.mul(y, z), "sum", (dim,), (), keepdims))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("keepdims", [True, False])
@pytest.mark.parametrize("dim", [1, 2, -1])
def test_dense_labels_take_one_autograd_node_with_the_composed_ops_bits(dtype, keepdims, dim):
    g = torch.Generator().manual_seed(0)
    z0 = torch.randn(4, 5, 7, generator=g, dtype=dtype) * 4
    y0 = torch.rand(4, 5, 7, generator=g, dtype=dtype)
    grad_out = torch.rand(z0.shape[:dim % 3] + ((1,) if keepdims else ()) + z0.shape[dim % 3 + 1:], generator=g,
                          dtype=dtype)
    results = []
    for loss_of in (_composed_loss, criterion_fusion._COMPUTATIONS["log_sum_exp_minus_dot"]):
        z, y = z0.clone().requires_grad_(), y0.clone().requires_grad_()
        loss = loss_of(z, y, dim, keepdims)
        results.append((loss.detach(),) + torch.autograd.grad(loss, (z, y), grad_out))
    for composed, one_node in zip(*results):
        assert torch.equal(composed, one_node)
    z = z0.clone().requires_grad_()
    loss = criterion_fusion._COMPUTATIONS["log_sum_exp_minus_dot"](z, y0, dim, keepdims)
    assert [type(f).__name__ for f, _ in loss.grad_fn.next_functions] == ["AccumulateGrad", "NoneType"]


def test_a_trainer_fed_dense_labels_uses_the_one_node_loss(monkeypatch):
    calls = []
    one_node = criterion_fusion._COMPUTATIONS["log_sum_exp_minus_dot"]

    def spy(*args):
        calls.append(args[2:])
        return one_node(*args)
    monkeypatch.setitem(criterion_fusion._COMPUTATIONS, "log_sum_exp_minus_dot", spy)
    x, y = C.input_variable(3), C.input_variable(4)
    z = C.times(x, C.parameter((3, 4), init=C.glorot_uniform(seed=1)))
    loss = C.cross_entropy_with_softmax(z, y)
    trainer = C.Trainer(z, (loss, C.classification_error(z, y)), [C.sgd(z.parameters, 0.1)])
    X = np.arange(6, dtype=np.float32).reshape(2, 3) / 6
    Y = np.eye(4, dtype=np.float32)[[1, 3]]
    trainer.train_minibatch({x: X, y: Y})
    assert calls == [(1, True)]
