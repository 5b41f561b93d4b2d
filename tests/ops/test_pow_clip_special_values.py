"""pow and clip where CNTK 2.7's definitions differ from torch's (golden values from CNTK 2.7): 0 to a negative
power is 0 (either zero), a negative base to a power that is not a finite integer is NaN, and the base's gradient
uses the same power (0 at a zero base except for exponent 1); clip with crossed bounds is
x < min ? min : (x > max ? max : x)."""
import numpy as np

import cntk as C

INF, NAN = np.inf, np.nan
# (base, exponent, CNTK 2.7's pow)
POW = [(0.0, -2.0, 0.0), (0.0, -0.5, 0.0), (0.0, 0.0, 1.0), (0.0, 0.5, 0.0), (0.0, -INF, 0.0), (-0.0, -1.0, 0.0),
       (-0.0, 3.0, 0.0), (-2.0, 3.0, -8.0), (-2.0, -2.0, 0.25), (-2.0, 0.5, NAN), (-2.0, INF, NAN), (-2.0, -INF, NAN),
       (-INF, -0.5, NAN), (-INF, 0.5, NAN), (-INF, 3.0, -INF), (-INF, INF, NAN), (INF, -INF, 0.0), (0.5, -INF, INF),
       (NAN, 0.0, 1.0), (2.0, -0.5, 0.70711)]
# (base, exponent, gradient for the base)
POW_GRAD = [(0.0, -2.0, 0.0), (0.0, -0.5, 0.0), (0.0, 0.0, 0.0), (0.0, 0.5, 0.0), (0.0, 1.0, 1.0), (0.0, 2.0, 0.0),
            (-2.0, -0.5, NAN), (-2.0, 2.0, -4.0), (2.0, -0.5, -0.17678)]


def test_pow_special_values():
    b, e = C.input_variable((1,)), C.input_variable((1,))
    B = np.array([[p[0]] for p in POW], np.float32)
    E = np.array([[p[1]] for p in POW], np.float32)
    got = C.pow(b, e).eval({b: B, e: E})[:, 0]
    want = np.array([p[2] for p in POW], np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert not np.signbit(got[5]) and not np.signbit(got[6])


def test_pow_gradient_at_special_values():
    b = C.input_variable((1,), needs_gradient=True)
    e = C.input_variable((1,))
    B = np.array([[p[0]] for p in POW_GRAD], np.float32)
    E = np.array([[p[1]] for p in POW_GRAD], np.float32)
    got = C.pow(b, e).grad({b: B, e: E}, wrt=[b])[:, 0]
    np.testing.assert_allclose(got, [p[2] for p in POW_GRAD], rtol=1e-4)


def test_clip_with_crossed_bounds():
    x = C.input_variable((3,))
    lo = C.input_variable((3,))
    X = np.array([[2, 3, 4], [5, 6, 7]], dtype=np.float32)
    L = np.array([[1, -2, 3], [0, 5, -1]], dtype=np.float32)
    np.testing.assert_array_equal(C.clip(x, lo, 3).eval({x: X, lo: L}), [[2, 3, 3], [3, 3, 3]])
    np.testing.assert_array_equal(C.clip(x, 5, 3).eval({x: X}), [[5, 5, 5], [3, 3, 3]])
