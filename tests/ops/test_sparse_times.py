"""times of a sparse input (held densely) picks the rows of the right operand instead of a dense product; the
values and the right operand's gradient must be those of the dense product."""
import numpy as np
import pytest
import torch

import cntk as C
from cntk_compat.core.engine import evaluate_tensors
from cntk_compat.ops.linear import _sparse_rows_times


def test_sparse_input_times_equals_dense_product_with_gradient():
    vocab, dim = 7, 3
    rng = np.random.default_rng(0)
    init = rng.standard_normal((vocab, dim)).astype(np.float32)
    results = []
    for sparse in (True, False):
        x = C.sequence.input_variable(vocab, is_sparse=sparse)
        E = C.parameter(init=init)
        f = C.times(x, E)
        rows = [np.eye(vocab, dtype=np.float32)[[1, 4, 4]] * 2.5, np.eye(vocab, dtype=np.float32)[[6]]]
        rows[0][1, 0] = -1.0  # a row with two nonzeros
        (out,), _ = evaluate_tensors(f.outputs, {x: rows}, requires_grad=True)
        (grad,) = torch.autograd.grad((out * torch.arange(out.numel(), device=out.device).reshape(out.shape)).sum(), [E.tensor])
        results.append((out.detach().cpu().numpy(), grad.cpu().numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)
    np.testing.assert_allclose(results[0][0][0, 1], 2.5 * init[4] - init[0], rtol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_sparse_rows_times_equals_the_dense_product(dtype):
    rng = np.random.default_rng(0)
    x = torch.zeros(3, 4, 6, dtype=dtype)
    x[0, 0, 2] = 1
    x[0, 1, 5] = 2.5
    x[1, 3, 0] = -0.0   # a negative zero: its products are zeros
    x[2, 2, 1] = -3
    x[2, 2, 4] = 1      # two nonzeros in one row
    w = torch.as_tensor(rng.standard_normal((6, 5))).to(dtype)
    expected = torch.matmul(x.double(), w.double())
    tol = 1e-2 if dtype in (torch.float16, torch.bfloat16) else 1e-6
    np.testing.assert_allclose(_sparse_rows_times(x, w).double().numpy(), expected.numpy(), rtol=tol, atol=tol)
    x[1, 0, 3] = float("nan")  # as the dense product, a NaN entry spreads over its row
    assert torch.isnan(_sparse_rows_times(x, w)[1, 0]).all()


def _assert_rows_times_equals_the_dense_product(x, w):
    """Values and the gradient for ``w`` of ``_sparse_rows_times(x, w)`` against the dense product in float64."""
    out = _sparse_rows_times(x, w)
    x64 = x.double().cpu()
    expected = torch.matmul(x64, w.detach().double().cpu())
    np.testing.assert_allclose(out.detach().double().cpu().numpy(), expected.numpy(), rtol=1e-6, atol=1e-6)
    weights = np.random.default_rng(0).standard_normal(tuple(out.shape))
    (grad,) = torch.autograd.grad(out, [w], torch.as_tensor(weights, dtype=torch.float32, device=out.device))
    expected_grad = torch.matmul(x64.reshape(-1, x.shape[-1]).t(), torch.as_tensor(weights).reshape(-1, w.shape[1]))
    np.testing.assert_allclose(grad.double().cpu().numpy(), expected_grad.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("lengths", [(3, 3, 3), (1, 4, 2)])
def test_recorded_one_hot_columns_pick_the_rows_of_the_dense_product(lengths):
    """Value.one_hot records each row's column (core/one_hot.py): times picks the rows without searching,
    padding and skipped samples give zero rows; values and gradient equal the dense product's."""
    from cntk_compat.core.one_hot import recorded_one_hot_columns
    rng = np.random.default_rng(1)
    words = [rng.integers(0, 6, n).tolist() for n in lengths]
    words[0][0] = C.Value.ONE_HOT_SKIP
    x = C.Value.one_hot(words, 6).tensor
    columns, every_row = recorded_one_hot_columns(x)
    assert not every_row
    expected_columns = np.full((3, max(lengths)), -1)
    for k, seq in enumerate(words):
        expected_columns[k, :len(seq)] = [-1 if c == C.Value.ONE_HOT_SKIP else c for c in seq]
    np.testing.assert_array_equal(columns.cpu().numpy(), expected_columns.reshape(-1))
    w = torch.as_tensor(rng.standard_normal((6, 5)), dtype=torch.float32, device=x.device).requires_grad_()
    _assert_rows_times_equals_the_dense_product(x, w)


def test_one_hot_sample_shapes_and_full_batches_are_recorded():
    from cntk_compat.core.one_hot import recorded_one_hot_columns
    x = C.Value.one_hot([[0, 2, 1, 1], [3, 0, 2, 2]], (2, 4)).tensor  # two rows per sample
    assert tuple(x.shape) == (2, 2, 2, 4)
    columns, every_row = recorded_one_hot_columns(x)
    assert every_row
    np.testing.assert_array_equal(columns.cpu().numpy(), [0, 2, 1, 1, 3, 0, 2, 2])
    w = torch.arange(20, dtype=torch.float32, device=x.device).reshape(4, 5)
    np.testing.assert_array_equal(_sparse_rows_times(x, w).cpu().numpy(), torch.matmul(x, w).cpu().numpy())


def test_a_changed_tensor_is_searched_again():
    """The record holds while the tensor is unchanged: after an in-place change times searches the nonzeros."""
    from cntk_compat.core.one_hot import recorded_one_hot_columns
    x = C.Value.one_hot([[1, 2], [0, 3]], 4).tensor
    x[0, 0] = torch.tensor([0.0, 0.0, 0.0, 2.0], device=x.device)
    assert recorded_one_hot_columns(x) is None
    w = torch.arange(12, dtype=torch.float32, device=x.device).reshape(4, 3)
    np.testing.assert_array_equal(_sparse_rows_times(x, w).cpu().numpy(), torch.matmul(x, w).cpu().numpy())


def test_csr_sequences_are_recorded_only_when_one_hot():
    from scipy import sparse
    from cntk_compat.core.one_hot import recorded_one_hot_columns, recorded_present_rows
    eye = np.eye(5, dtype=np.float32)
    hot = [sparse.csr_matrix(eye[[4, 0, 2]]), sparse.csr_matrix(eye[[1]])]
    x = C.Value.from_batch(hot, is_sequence=True, is_sparse=True).tensor
    columns, every_row = recorded_one_hot_columns(x)
    np.testing.assert_array_equal(columns.cpu().numpy(), [4, 0, 2, 1, -1, -1])
    assert not every_row
    rows, present = recorded_present_rows(x)        # known on the host when recorded: times needs no search
    np.testing.assert_array_equal(rows.cpu().numpy(), [0, 1, 2, 3])
    np.testing.assert_array_equal(present.cpu().numpy(), [4, 0, 2, 1])
    weighted = [sparse.csr_matrix(eye[[4, 0]] * 2), sparse.csr_matrix(eye[[1]])]
    assert recorded_one_hot_columns(C.Value.from_batch(weighted, is_sequence=True, is_sparse=True).tensor) is None
    two = [sparse.csr_matrix(eye[[4]] + eye[[0]])]
    assert recorded_one_hot_columns(C.Value.from_batch(two, is_sequence=True, is_sparse=True).tensor) is None


@pytest.mark.parametrize("padded", [False, True])
def test_unrecorded_one_hot_rows_are_found_and_picked(padded):
    """Without a record times finds the nonzeros; rows with a single 1 (and zero rows) are picked without
    weighting; values and gradient equal the dense product's."""
    rng = np.random.default_rng(2)
    x = torch.zeros(3, 4, 7)
    x.scatter_(2, torch.as_tensor(rng.integers(0, 7, (3, 4, 1))), 1.0)
    if padded:
        x[1, 2:] = 0
    w = torch.as_tensor(rng.standard_normal((7, 5)), dtype=torch.float32).requires_grad_()
    _assert_rows_times_equals_the_dense_product(x, w)


def test_one_hot_value_through_a_graph_equals_the_dense_feed():
    vocab, dim = 6, 4
    init = np.random.default_rng(3).standard_normal((vocab, dim)).astype(np.float32)
    words = [[5, 0, 2], [1]]
    results = []
    for sparse_feed in (True, False):
        x = C.sequence.input_variable(vocab, is_sparse=sparse_feed)
        E = C.parameter(init=init)
        f = C.times(x, E)
        data = C.Value.one_hot(words, vocab) if sparse_feed else [np.eye(vocab, dtype=np.float32)[w] for w in words]
        (out,), _ = evaluate_tensors(f.outputs, {x: data}, requires_grad=True)
        (grad,) = torch.autograd.grad((out * torch.arange(out.numel(), device=out.device).reshape(out.shape)).sum(), [E.tensor])
        results.append((out.detach().cpu().numpy(), grad.cpu().numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)


def test_sparse_left_operand_reducing_several_axes_is_refused_when_built():
    # CNTK 2.7 raises RuntimeError when the graph is built: its sparse product reduces one axis only
    a = C.input_variable((2, 3, 3), is_sparse=True)
    with pytest.raises(RuntimeError, match="cannot reduce multiple \\(2\\) axes"):
        C.times(a, C.parameter(init=np.ones((3, 3, 2), np.float32)))
    with pytest.raises(RuntimeError):
        C.times(C.input_variable((2, 3), is_sparse=True), C.parameter(init=np.ones((2, 3, 2), np.float32)))
    # one reduced axis, a dense operand, or a sparse right operand are fine (shapes as CNTK 2.7 gives them)
    assert C.times(a, C.parameter(init=np.ones((3, 2), np.float32))).shape == (2, 3, 2)
    assert C.times(C.input_variable((2, 3, 3)), C.parameter(init=np.ones((3, 3, 2), np.float32))).shape == (2, 2)
    s = C.input_variable((3, 3), is_sparse=True)
    assert C.times(C.parameter(init=np.ones((4, 3, 3), np.float32)), s).shape == (4, 3, 3)


def test_sparse_left_operand_with_inferred_reduction_axes_builds_clones_and_loads(tmp_path):
    # as in CNTK 2.7: a Dense layer over a sparse matrix infers a weight that reduces both axes
    s = C.input_variable((2, 3), is_sparse=True)
    m = C.layers.Dense(4)(s)
    assert m.shape == (4,) and [p.shape for p in m.parameters] == [(2, 3, 4), (4,)]
    assert C.times(s, C.parameter((C.InferredDimension, 4), init=1), infer_input_rank_to_map=0).shape == (4,)
    assert m.clone(C.CloneMethod.clone).shape == (4,)
    m.save(str(tmp_path / "m.model"))
    assert C.load_model(str(tmp_path / "m.model")).shape == (4,)


def test_a_one_hot_record_follows_the_fed_tensor_to_the_models_device_and_dtype():
    from cntk_compat.core.feeding import to_value
    from cntk_compat.core.one_hot import record_one_hot_columns, recorded_one_hot_columns
    hot = record_one_hot_columns(torch.eye(4)[[1, 3, 0]], [1, 3, 0])
    x = C.input_variable(4, dtype=np.float64, is_sparse=True)
    fed = to_value(x, hot, C.use_default_device().torch_device()).tensor
    assert fed.dtype == torch.float64 and fed is not hot
    columns, every_row = recorded_one_hot_columns(fed)
    assert columns.cpu().tolist() == [1, 3, 0] and every_row
