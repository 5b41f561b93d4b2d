"""Which axes softmax, hardmax and log_softmax normalize when no axis is given (values printed by CNTK 2.7)."""
import numpy as np
import pytest

import cntk as C

A = np.array([[1.0, 2.0, 3.0], [1.0, 1.0, 5.0]], np.float32)
PER_ROW = [[0.09003057, 0.24472847, 0.66524096], [0.01766842, 0.01766842, 0.96466316]]
WHOLE = [[0.01476985, 0.04014862, 0.10913526], [0.01476985, 0.01476985, 0.80640657]]


def test_softmax_normalizes_a_sample_whole_and_a_constant_along_its_last_axis():
    x = C.input_variable((2, 3))
    np.testing.assert_allclose(C.softmax(x).eval({x: A[None]})[0], WHOLE, rtol=1e-5)
    # no dynamic axes: CNTK's matrix view, one column per position of the leading axes
    np.testing.assert_allclose(C.softmax(C.constant(A)).eval(), PER_ROW, rtol=1e-5)
    np.testing.assert_allclose(C.softmax(C.parameter((2, 3), init=A)).eval(), PER_ROW, rtol=1e-5)
    np.testing.assert_array_equal(C.hardmax(C.constant(A)).eval(), [[0, 0, 1], [0, 0, 1]])
    np.testing.assert_array_equal(C.hardmax(x).eval({x: A[None]})[0], [[0, 0, 0], [0, 0, 1]])
    assert C.softmax(x).root_function.attributes == {}


def test_log_softmax_defaults_to_the_last_axis():
    x = C.input_variable((2, 3))
    expected = np.log(PER_ROW)
    np.testing.assert_allclose(C.log_softmax(x).eval({x: A[None]})[0], expected, rtol=1e-5)
    np.testing.assert_allclose(C.log_softmax(C.constant(A)).eval(), expected, rtol=1e-5)
    np.testing.assert_allclose(C.log_softmax(x, axis=0).eval({x: A[None]})[0],
                               np.log(np.exp(A) / np.exp(A).sum(0)), rtol=1e-5)
    assert C.log_softmax(x).root_function.attributes == {'axis': ('ordered', 'static', 0)}     # as CNTK 2.7
    with pytest.raises(RuntimeError):
        C.log_softmax(C.input_variable(()))                                    # CNTK: no axis to reduce
