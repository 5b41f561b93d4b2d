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
        (grad,) = torch.autograd.grad((out * torch.arange(out.numel()).reshape(out.shape)).sum(), [E.tensor])
        results.append((out.detach().numpy(), grad.numpy()))
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
