"""CNTK's edge-case semantics of elementwise ops (values from CNTK 2.7's documentation and tests)."""
import numpy as np
import pytest

import cntk as C


def _value_and_grad(op, data):
    x = C.input_variable(np.shape(data)[1:], needs_gradient=True)
    f = op(x)
    return f.eval({x: data}), f.grad({x: data})


def test_log_clamps_below_eps_and_gradient_is_exp_of_minus_output():
    y, g = _value_and_grad(C.log, np.array([[0.0, -0.1, 1.0]], np.float32))
    np.testing.assert_allclose(y, [[-85.1, -85.1, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(g, [[9.08782e36, 9.08782e36, 1.0]], rtol=1e-5)


def test_sqrt_of_negative_is_zero_with_infinite_gradient():
    y, g = _value_and_grad(C.sqrt, np.array([[-1.0, 0.0, 4.0]], np.float32))
    np.testing.assert_array_equal(y, [[0.0, 0.0, 2.0]])
    np.testing.assert_array_equal(g, [[np.inf, np.inf, 0.25]])


def test_reciprocal_of_zero_is_zero():
    y, g = _value_and_grad(C.reciprocal, np.array([[0.0, -0.1]], np.float32))
    np.testing.assert_allclose(y, [[0.0, -10.0]], rtol=1e-6)
    np.testing.assert_allclose(g, [[0.0, -100.0]], rtol=1e-5)


@pytest.mark.parametrize("op, slope", [(C.leaky_relu, 0.01), (lambda x: C.param_relu(C.constant(0.5), x), 0.5)])
def test_relu_variants_have_gradient_one_at_zero(op, slope):
    _, g = _value_and_grad(op, np.array([[0.0, -1.0, 2.0]], np.float32))
    np.testing.assert_allclose(g, [[1.0, slope, 1.0]])


def test_pow_exponent_gradient_is_zero_for_negative_base():
    b = C.input_variable(2, needs_gradient=True)
    e = C.input_variable(2, needs_gradient=True)
    grads = C.pow(b, e).grad({b: np.array([[-2.0, 2.0]], np.float32), e: np.array([[2.0, 2.0]], np.float32)},
                             wrt=[b, e])
    np.testing.assert_allclose(grads[b], [[-4.0, 4.0]])
    np.testing.assert_allclose(grads[e], [[0.0, 4.0 * np.log(2.0)]], rtol=1e-6)


def test_gradient_without_differentiable_path_is_zero():
    x = C.input_variable(3, needs_gradient=True)
    for f in (C.stop_gradient(x), C.greater(x, 1), C.hardmax(x), C.zeros_like(x)):
        g = f.grad({x: np.array([[1.0, 2.0, 3.0]], np.float32)})
        np.testing.assert_array_equal(g, np.zeros((1, 3), np.float32))


def test_param_relu_values_and_gradients_as_cntk():
    # CNTK 2.7: the gradient for x is 1 at x == 0 (alpha only where x < 0); alpha's gradient sums x there
    x = C.input_variable(4, needs_gradient=True)
    a = C.parameter(init=np.array([0.2, 0.3, 0.4, 0.5], np.float32))
    y = C.param_relu(a, x)
    v = np.array([[-1, 0, 2, -3], [-2, 1, -1, 0]], np.float32)
    np.testing.assert_array_equal(y.eval({x: v}), np.where(v < 0, v * np.array([0.2, 0.3, 0.4, 0.5], np.float32), v))
    g = y.grad({x: v}, wrt=[a, x])
    np.testing.assert_allclose(g[a], [-3.0, 0.0, -1.0, -3.0])
    np.testing.assert_allclose(g[x], [[0.2, 1.0, 1.0, 0.5], [0.2, 1.0, 0.4, 1.0]], rtol=1e-7)
