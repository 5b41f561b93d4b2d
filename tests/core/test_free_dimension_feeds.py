"""Free static dimensions in recurrences, and sequences fed as a list of NDArrayViews (CNTK 2.7's
free_static_axis_test.py::test_free_static_axis_in_recurrence and sequence_test.py's Value.create of
NDArrayView.from_csr sequences)."""
import numpy as np
import pytest
import scipy.sparse

import cntk as C


def test_past_value_loop_over_an_input_with_a_free_dimension():
    x = C.sequence.input_variable((C.FreeDimension, 2))
    out_placeholder = C.placeholder()
    out_past = C.sequence.past_value(out_placeholder)
    wh = C.parameter(init=np.asarray([[2, 5], [1, 3]], dtype=np.float32))
    wx = C.parameter(init=np.asarray([[1, 4], [2, 5]], dtype=np.float32))
    out = C.times(x, wx) + C.times(out_past, wh)
    out.replace_placeholders({out_placeholder: out})
    x_data = np.asarray([[0.5, 0.2], [-0.7, 1.2]], np.float32)  # one sequence of one step of shape (2, 2)
    w_grad, out_val = out.grad({x: x_data}, wrt=[wh, wx], outputs=[out])
    assert np.allclose(out_val, [[[[0.9, 3.], [1.7, 3.2]]]])
    assert np.allclose(w_grad[wx], [[-0.2, -0.2], [1.4, 1.4]])
    # two steps with a free dimension of 3: the second step reads the first through past_value
    steps = np.arange(12, dtype=np.float32).reshape(1, 2, 3, 2) / 10
    got = np.asarray(out.eval({x: steps}))
    first = steps[0, 0] @ wx.value
    assert np.allclose(got[0, 0], first)
    assert np.allclose(got[0, 1], steps[0, 1] @ wx.value + first @ wh.value)


def test_value_create_from_sparse_ndarrayviews():
    rows = [[[0, 1, 1], [0, 1, 0]], [[1, 0, 0], [1, 0, 1]]]
    view1 = C.NDArrayView.from_csr(scipy.sparse.csr_matrix(np.asarray(rows, np.float32).reshape(4, 3)),
                                   shape=(2, 2, 3), device=C.cpu())
    view2 = C.NDArrayView.from_csr(scipy.sparse.csr_matrix(np.asarray([[0, 1, 1], [1, 1, 0]], np.float32)),
                                   shape=(1, 2, 3), device=C.cpu())
    s = C.sequence.input_variable((2, 3), is_sparse=True)
    value = C.Value.create(s, [view1, view2], device=C.cpu())
    assert value.is_sparse
    got = C.reduce_sum(s, axis=0).eval({s: value})
    assert np.array_equal(got[0], np.asarray(rows, np.float32).sum(axis=1, keepdims=True))
    assert np.array_equal(got[1], [[[1, 2, 1]]])


def test_inferred_dimension_of_an_input_is_fixed_by_the_graph_and_first_data():
    # CNTK 2.7 (free_static_axis_test): x (free, inferred) times a 2x2 weight
    x = C.input_variable((C.FreeDimension, -1))
    w = C.parameter(init=np.asarray([[2, 5], [1, 3]], dtype=np.float32))
    t = C.times(x, w)
    w_grad, t_val = t.grad({x: np.asarray([[0.5, 0.2]], np.float32)}, wrt=[w], outputs=[t])
    assert np.allclose(t_val, [[[1.2, 3.1]]]) and np.allclose(w_grad, [[0.5, .5], [.2, .2]])
    assert x.shape == (C.FreeDimension, 2)
    w_grad, t_val = t.grad({x: np.asarray([[0.5, 0.2], [0.1, .6]], np.float32)}, wrt=[w], outputs=[t])
    assert np.allclose(t_val, [[[1.2, 3.1], [0.8, 2.3]]]) and np.allclose(w_grad, [[0.6, .6], [.8, .8]])
    with pytest.raises(ValueError):
        t.grad({x: np.asarray([[0.5, 0.2, 0.9]], np.float32)}, wrt=[w], outputs=[t])


def test_first_data_fixes_an_inferred_input_dimension():
    x = C.input_variable(-1)
    y = x * 2
    assert np.array_equal(y.eval({x: np.ones((1, 3), np.float32)}), [[2., 2., 2.]])
    assert x.shape == (3,) and y.shape == (3,)
    with pytest.raises(ValueError):  # CNTK 2.7: the Value shape [1 x 5] does not match the Variable's [3]
        y.eval({x: np.ones((1, 5), np.float32)})
    z = C.input_variable(-1)
    s = z + C.constant(np.ones(4, np.float32))
    with pytest.raises(ValueError):  # the graph knows the size already (4)
        s.eval({z: np.ones((1, 3), np.float32)})
    assert np.array_equal(s.eval({z: np.ones((1, 4), np.float32)}), [[2., 2., 2., 2.]])


def test_an_inferred_dimension_is_fixed_once_and_later_calls_take_the_plain_path(monkeypatch):
    from cntk_compat.core import engine, reinference
    x = C.input_variable(-1)
    y = C.times(x, C.parameter((3, 2), init=1))  # fixing x leaves every node's output type as it was
    data = np.ones((2, 3), np.float32)
    assert np.array_equal(y.eval({x: data}), [[3., 3.], [3., 3.]]) and x.shape == (3,)
    fixes, walks, plain = [], [], []
    fix, walk, plain_inputs = engine._fix_inferred_dimensions, reinference.walk, engine._plain_inputs
    monkeypatch.setattr(engine, "_fix_inferred_dimensions", lambda *a: fixes.append(1) or fix(*a))
    monkeypatch.setattr(reinference, "walk", lambda *a, **k: walks.append(1) or walk(*a, **k))
    monkeypatch.setattr(engine, "_plain_inputs", lambda *a: plain.append(plain_inputs(*a)) or plain[-1])
    for _ in range(2):
        assert np.array_equal(y.eval({x: 2 * data}), [[6., 6.], [6., 6.]])
    # the call plan (made again once x's type changed) knows x has nothing left to infer: no fixing, no graph
    # walk, and the data go in as they are
    assert fixes == [] and walks == [] and len(plain) == 2 and all(p is not None for p in plain)
