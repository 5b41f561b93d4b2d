"""times of a sparse input (held densely) picks the rows of the right operand instead of a dense product; the
values and the right operand's gradient must be those of the dense product."""
import numpy as np
import torch

import cntk as C
from cntk_compat.core.engine import evaluate_tensors


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
