"""times of a sparse input (held densely) picks the rows of the matrix its nonzeros select; it must equal the
dense product, for every float dtype, including entries that are negative zero, NaN or not one."""
import numpy as np
import pytest
import torch

from cntk_compat.ops.linear import _sparse_rows_times


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
