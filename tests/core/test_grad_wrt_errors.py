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
