"""Function.grad refuses what CNTK 2.7 refuses, with its messages."""
import numpy as np
import pytest

import cntk as C


def test_grad_without_any_argument_needing_a_gradient():
    x = C.input_variable(2)
    with pytest.raises(ValueError, match="None of the Function .* arguments have 'needs_gradient == True'"):
        C.square(x).grad({x: np.ones((1, 2), np.float32)})


def test_grad_for_an_input_that_needs_no_gradient():
    x = C.input_variable(2)
    with pytest.raises(ValueError, match="Gradient value incorrectly requested for Variable 'Input"):
        C.square(x).grad({x: np.ones((1, 2), np.float32)}, wrt=[x])


def test_grad_for_a_parameter_of_an_input_that_needs_no_gradient():
    x = C.input_variable(2)
    W = C.parameter((2,), init=1.0)
    g = C.square(x * W).grad({x: np.array([[1., 4.]], np.float32)}, wrt=[W])
    np.testing.assert_allclose(g, [2., 32.])


def test_wrt_takes_any_iterable_of_variables():
    # CNTK 2.7 iterates over `wrt`: a dict's keys or values, a dict, a set or a generator name the variables
    # (influence-function-cntk passes `v.keys()`); gradients from CNTK 2.7
    x = C.input_variable(2, needs_gradient=True)
    d = C.layers.Dense(1, init=C.glorot_uniform(seed=1))
    f = C.reduce_sum(C.square(d(x)))
    X = np.array([[1., 2.]], np.float32)
    both = {d.W: 1, d.b: 2}
    for wrt in (both.keys(), both, (p for p in [d.W, d.b])):
        g = f.grad({x: X}, wrt=wrt)
        assert set(g) == {d.W, d.b}
        np.testing.assert_allclose(g[d.W].ravel(), [-6.1847, -12.3694], atol=1e-4)
        np.testing.assert_allclose(g[d.b].ravel(), [-6.1847], atol=1e-4)
    for wrt in ({d.b}, {1: d.b}.values()):
        np.testing.assert_allclose(f.grad({x: X}, wrt=wrt).ravel(), [-6.1847], atol=1e-4)
