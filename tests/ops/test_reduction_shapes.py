"""Reductions over all static axes give a scalar per sample, as in CNTK 2.7 (shapes and values from CNTK 2.7):
reduce_X(x) and reduce_X(x, axis=Axis.all_static_axes()) have shape (), reduce_X(x, axis=Axis.all_axes()) is
one scalar without dynamic axes, argmax/argmin without an axis give the flat index as a scalar; named axes keep
their dimension (keepdims)."""
import numpy as np
import pytest

import cntk as C

REDUCTIONS = [C.reduce_sum, C.reduce_mean, C.reduce_max, C.reduce_min, C.reduce_prod, C.reduce_log_sum_exp,
              C.reduce_l1, C.reduce_l2, C.reduce_sum_square]
DATA = np.arange(12, dtype=np.float32).reshape(2, 2, 3)


@pytest.mark.parametrize("shape", [(1,), (3,), (2, 3), ()])
@pytest.mark.parametrize("op", REDUCTIONS + [C.argmax, C.argmin], ids=lambda f: getattr(f, "__name__", f))
def test_default_axis_is_a_scalar_per_sample(op, shape):
    x = C.input_variable(shape)
    y = op(x)
    assert y.shape == ()
    assert y.dynamic_axes == x.dynamic_axes


def test_all_static_axes_values():
    x = C.input_variable((2, 3))
    y = C.reduce_sum(x, axis=C.Axis.all_static_axes())
    assert y.shape == ()
    assert np.array_equal(y.eval({x: DATA}), [15., 51.])
    assert np.array_equal(C.reduce_mean(x).eval({x: DATA}), [2.5, 8.5])
    assert np.array_equal(C.argmax(x).eval({x: DATA}), [5., 5.])
    assert np.array_equal(C.argmin(x).eval({x: DATA}), [0., 0.])


def test_all_axes_is_one_scalar():
    x = C.input_variable((2, 3))
    y = C.reduce_sum(x, axis=C.Axis.all_axes())
    assert y.shape == () and y.dynamic_axes == ()
    assert float(y.eval({x: DATA})) == 66.0
    assert float(C.reduce_mean(x, axis=C.Axis.all_axes()).eval({x: DATA})) == 5.5
    s = C.sequence.input_variable(3)
    total = C.reduce_sum(s, axis=C.Axis.all_axes())
    assert total.shape == ()
    assert float(total.eval({s: [np.ones((2, 3), np.float32), np.ones((1, 3), np.float32)]})) == 9.0


def test_named_axes_keep_their_dimension():
    x = C.input_variable((2, 3))
    assert C.reduce_sum(x, axis=1).shape == (2, 1)
    assert C.reduce_sum(x, axis=1, keepdims=False).shape == (2,)
    assert C.reduce_sum(x, axis=[0, 1]).shape == (1, 1)
    assert C.reduce_sum(x, axis=[0, 1], keepdims=False).shape == ()
    assert C.argmax(x, axis=1).shape == (2, 1)
    assert np.array_equal(C.reduce_sum(x, axis=(0, 1)).eval({x: DATA}), [[[15.]], [[51.]]])


def test_sequence_reduce_of_a_reduced_sample():
    # CNTK 2.7's sequence_test.py::test_sequence_reduce_over_reduced_scalar
    x = C.sequence.input_variable(shape=(1,), needs_gradient=True)
    op = C.sequence.reduce_sum(C.reduce_sum(x))
    grad, result = op.grad({x: np.asarray([[-1], [3], [5]], dtype=np.float32)}, outputs=[op])
    assert np.array_equal(result, [7.0])
    assert np.array_equal(grad[0], [[1.0], [1.0], [1.0]])


def test_saved_all_static_reduction_loads_as_a_scalar(tmp_path):
    x = C.input_variable((3, 4), name="x")
    for f in (C.reduce_mean(x), C.argmax(x)):
        path = str(tmp_path / "m.model")
        f.save(path)
        g = C.load_model(path)
        assert g.shape == ()
        data = np.random.RandomState(0).rand(2, 3, 4).astype(np.float32)
        assert np.allclose(g.eval({g.arguments[0]: data}), f.eval({x: data}))
