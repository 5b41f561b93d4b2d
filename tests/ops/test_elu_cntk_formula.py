"""CNTK 2.7's ELU is x > 0 ? x : alpha * (exp(x) - 1) (not expm1) with the gradient g * (x > 0 ? 1 : output +
alpha); SELU is scale * (alpha * (exp(x) - 1)) below 0. Golden values from CNTK 2.7 (float32)."""
import numpy as np

import cntk as C


def test_elu_below_zero_is_exp_minus_one_as_cntk_computes_it():
    x = C.input_variable(4, needs_gradient=True)
    v = np.array([[-1e-3, -3e-2, -0.5, 1.5]], np.float32)
    y = C.elu(x).eval({x: v})
    # CNTK 2.7's values (exp(x) - 1 in float32); expm1 gives -0.0009995002 for -1e-3
    assert y.tolist() == [[-0.0009995102882385254, -0.02955448627471924, -0.39346933364868164, 1.5]]
    assert y[0, 0] != np.float32(np.expm1(np.float32(-1e-3)))


def test_elu_gradient_is_output_plus_alpha_and_edges_are_cntks():
    x = C.input_variable(5, needs_gradient=True)
    v = np.array([[-np.inf, -1, -0.25, 0, 2]], np.float32)
    for alpha in (1.0, 0.5):
        f = C.elu(x, alpha=alpha)
        y = f.eval({x: v})
        c = np.array([3, -2, 0.5, 1, 4], np.float32)
        g = np.asarray((f * C.constant(c)).grad({x: v}, wrt=[x]))
        expected = np.where(v > 0, c, c * (y + np.float32(alpha)))
        assert np.array_equal(g, expected)
        assert y[0, 0] == -alpha and g[0, 0] == 0   # CNTK 2.7: elu(-inf) = -alpha with gradient 0


def test_selu_below_zero_uses_exp_minus_one():
    x = C.input_variable(3)
    v = np.array([[-1e-3, -2.0, 0.5]], np.float32)
    scale, alpha = 1.0507009873554805, 1.6732632423543772
    below_zero = np.float32(scale) * (np.float32(alpha) * (np.exp(v[0, :2]) - np.float32(1)))
    got = C.selu(x).eval({x: v})
    np.testing.assert_allclose(got[0, :2], below_zero, rtol=2e-7)
    assert got[0, 2] == np.float32(scale * 0.5)


def test_selu_gradient_at_zero_is_scale():
    # CNTK 2.7's SELU takes the linear branch from 0 on (its own test: gradient 1.0507 at 0, 1.7581 * exp(x) below)
    x = C.input_variable(2, needs_gradient=True)
    g = C.selu(x).grad({x: np.array([[0, -0.1]], np.float32)})
    np.testing.assert_allclose(g, [[1.0507009873554805, 1.7580993408473768 * np.exp(-0.1)]], rtol=1e-6)
