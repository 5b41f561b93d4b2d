"""times(x, W) + b lowers to one addmm (core.affine_fusion) with the values and gradients of the two ops, and
only where the product is read by nothing else."""
import numpy as np
import torch

import cntk as C
from cntk_compat.core.affine_fusion import affine
from cntk_compat.core.engine import call_plan


def _targets(f):
    return [n.target for module in call_plan(f.outputs).modules.values() for n in module.graph.nodes
            if n.op == "call_function"]


def test_stacked_dense_layers_fuse_and_equal_the_two_ops():
    rng = np.random.default_rng(0)
    x = C.input_variable(5, dtype=np.float64)
    with C.default_options(dtype=np.float64):
        f = C.layers.Sequential([C.layers.Dense(4, activation=None, init_bias=0.3),
                                 C.layers.Dense(3, activation=None, init_bias=-0.2)])(x)
    data = rng.standard_normal((6, 5))
    grads = f.grad({x: data}, wrt=f.parameters)
    assert _targets(f).count(affine) == 2
    W1, b1, W2, b2 = [{p.shape: p.value for p in f.parameters}[s] for s in ((5, 4), (4,), (4, 3), (3,))]
    np.testing.assert_allclose(f.eval({x: data}), (data @ W1 + b1) @ W2 + b2, rtol=1e-12)
    by_shape = {p.shape: grads[p] for p in f.parameters}
    np.testing.assert_allclose(by_shape[(3,)], np.full(3, 6.0), rtol=1e-12)
    np.testing.assert_allclose(by_shape[(4, 3)], (data @ W1 + b1).sum(0)[:, None] * np.ones((1, 3)), rtol=1e-12)
    np.testing.assert_allclose(by_shape[(5, 4)], data.sum(0)[:, None] * W2.sum(1)[None, :], rtol=1e-12)


def test_a_product_read_elsewhere_is_not_fused():
    x = C.input_variable(3)
    W = C.parameter((3, 2), init=1.0)
    product = C.times(x, W)
    f = C.combine([product + C.parameter(2, init=0.5), product])
    out = f.eval({x: np.ones((1, 3), np.float32)})
    assert affine not in _targets(f)
    np.testing.assert_allclose(list(out.values())[0], [[3.5, 3.5]])


def test_sequence_input_and_a_broadcasting_sum_keep_their_shapes():
    x = C.sequence.input_variable(3)
    W = C.parameter((3, 2), init=1.0)
    f = C.times(x, W) + C.parameter(2, init=0.5)
    g = C.times(x, W) + C.parameter((4, 2), init=0.5)  # broadcasts the product: not an affine map
    data = [np.ones((2, 3), np.float32), np.ones((4, 3), np.float32)]
    out = f.eval({x: data})
    assert affine in _targets(f)
    assert [o.shape for o in out] == [(2, 2), (4, 2)]
    np.testing.assert_allclose(out[1], np.full((4, 2), 3.5))
    assert [o.shape for o in g.eval({x: data})] == [(2, 4, 2), (4, 4, 2)]
    assert affine not in _targets(g)
