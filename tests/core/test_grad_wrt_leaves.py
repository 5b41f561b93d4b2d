"""Function.grad checks its wrt variables as CNTK 2.7's gradients() does (ValueError): each must be a leaf of
the Function, and an input only when declared with needs_gradient=True; without wrt, some argument must need a
gradient. Golden values from CNTK 2.7."""
import numpy as np
import pytest

import cntk as C

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def _graph():
    x = C.input_variable((3,))
    xg = C.input_variable((3,), needs_gradient=True)
    p = C.parameter((3,), init=np.array([1., 2., 3.], dtype=np.float32))
    c = C.constant(np.array([1., 2., 3.], dtype=np.float32))
    h = xg * p
    return x, xg, p, c, h, C.reduce_sum(h * c + x)


def test_gradients_of_leaves_that_take_them():
    x, xg, p, c, h, f = _graph()
    assert np.allclose(f.grad({x: X, xg: X}), [[1, 4, 9], [1, 4, 9]])
    g = f.grad({x: X, xg: X}, wrt=[xg, p])
    assert np.allclose(g[p], [3, 10, 21])


@pytest.mark.parametrize("which", ["input", "constant", "output", "output_variable", "foreign_parameter"])
def test_wrt_that_takes_no_gradient_is_refused(which):
    x, xg, p, c, h, f = _graph()
    v = {"input": x, "constant": c, "output": h, "output_variable": h.output,
         "foreign_parameter": C.parameter((3,))}[which]
    with pytest.raises(ValueError):
        f.grad({x: X, xg: X}, wrt=[v])


def test_no_argument_needs_gradient():
    x = C.input_variable((3,))
    with pytest.raises(ValueError, match="needs_gradient"):
        C.reduce_sum(x * 2).grad({x: X})
