"""softmax/log_softmax with Axis objects, as CNTK 2.7 (golden values from it): softmax over
Axis.all_static_axes() normalizes the whole sample (as axis=None); log_softmax over it, and either over the batch
axis, is a RuntimeError."""
import numpy as np
import pytest

import cntk as C


def test_softmax_over_all_static_axes_is_the_whole_sample():
    x = C.input_variable((2, 3))
    X = np.array([[[1, 2, 3], [3, 1, 0]]], dtype=np.float32)
    got = C.softmax(x, axis=C.Axis.all_static_axes()).eval({x: X})
    np.testing.assert_allclose(got, [[[0.0503, 0.1368, 0.3720], [0.3720, 0.0503, 0.0185]]], atol=1e-4)


def test_axes_that_are_not_static_are_refused():
    x = C.input_variable((2, 3))
    with pytest.raises(RuntimeError):
        C.log_softmax(x, axis=C.Axis.all_static_axes())
    for axis in (C.Axis.default_batch_axis(), C.Axis.all_axes()):
        with pytest.raises(RuntimeError):
            C.softmax(x, axis=axis)


def test_log_softmax_over_the_batch_axis():
    x = C.input_variable((2, 3))
    X = np.arange(12, dtype=np.float32).reshape(2, 2, 3) / 3
    got = C.log_softmax(x, axis=C.Axis.default_batch_axis()).eval({x: X})
    np.testing.assert_allclose(got, X - np.log(np.exp(X).sum(0)), rtol=1e-5)
