"""Value.create / asvalue lay data out as CNTK 2.7 does, and a Value fed to an input is read by its rank.

Expected shapes come from running CNTK 2.7: one array, CSR matrix or NDArrayView keeps its own shape; a list
is a batch of sequences (one per entry) padded to the longest, whatever the input's dynamic axes; when fed,
the axes a Value has beyond the input's rank are [batch] x [sequence].
"""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import cntk as C
from cntk.internal import _value_as_sequence_or_array

T = np.array([4., 5, 6, 7, 8], np.float32)


def _var(n_dynamic, shape=5, is_sparse=False):
    if n_dynamic == 2:
        return C.sequence.input_variable(shape, is_sparse=is_sparse)
    if n_dynamic == 1:
        return C.input_variable(shape, is_sparse=is_sparse)
    return C.input_variable(shape, is_sparse=is_sparse, dynamic_axes=[])


def _shapes(r):
    return [np.asarray(a).shape for a in r] if isinstance(r, list) else r.shape


@pytest.mark.parametrize("n_dynamic, data, value_shape, read_back, evaluated", [
    # (dynamic axes, data, Value shape, _value_as_sequence_or_array shapes, shapes (x * 1).eval gives)
    (2, T, (5,), [()] * 5, [(1, 5)]),
    (2, np.array([T]), (1, 5), [(5,)], [(1, 5)]),
    (2, np.array([T, T]), (2, 5), [(5,), (5,)], [(2, 5)]),          # one sequence of two steps
    (2, np.array([[T], [T]]), (2, 1, 5), [(1, 5), (1, 5)], [(1, 5), (1, 5)]),
    (2, [T, T], (2, 1, 5), [(1, 5), (1, 5)], [(1, 5), (1, 5)]),
    (2, [np.array([T]), np.array([T, T])], (2, 2, 5), [(1, 5), (2, 5)], [(1, 5), (2, 5)]),
    (1, T, (5,), (5,), (1, 5)),
    (1, np.array([T, T]), (2, 5), (2, 5), (2, 5)),
    (1, [T, T], (2, 1, 5), (2, 1, 5), (2, 5)),
    (1, [np.array([T]), np.array([T])], (2, 1, 5), (2, 1, 5), (2, 5)),
    (0, T, (5,), (5,), (5,)),
    (0, np.array([T]), (1, 5), (1, 5), (5,)),
    (0, [T], (1, 5), (1, 5), (5,)),
    (0, [T, T], (2, 5), (2, 5), None),
])
def test_dense_layout_matches_cntk(n_dynamic, data, value_shape, read_back, evaluated):
    x = _var(n_dynamic)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        val = C.asvalue(x, data)
    assert val.shape == value_shape
    assert _shapes(_value_as_sequence_or_array(val, x)) == read_back
    if evaluated is None:
        with pytest.raises(ValueError, match="must be 1, because this axis is not specified as a dynamic axis"):
            (x * 1).eval({x: val})
    else:
        assert _shapes((x * 1).eval({x: val})) == evaluated


def test_a_value_of_another_layout_than_the_input_is_refused_clearly():
    x, s = _var(1), _var(2)
    # CNTK 2.7's words: "The dimension size (3) of the axis (1) of the Value ('[2 x 3 x 5]') must be 1, because this
    # axis is not specified as a dynamic axis of the Variable ('Input('Input3', [#], [5])')."
    with pytest.raises(ValueError, match=r"^The dimension size \(3\) of the axis \(1\) of the Value \('\[2 x 3 x 5\]'\) "
                                         r"must be 1, because this axis is not specified as a dynamic axis of the "
                                         r"Variable \('Input\('\w+', \[#\], \[5\]\)'\)\.$"):
        (x * 1).eval({x: C.asvalue(x, np.zeros((2, 3, 5), np.float32))})
    with pytest.raises(ValueError, match="at most 2 axes"):
        (s * 1).eval({s: C.asvalue(s, np.zeros((1, 2, 3, 5), np.float32))})
    with pytest.raises(ValueError, match=r"The dimension size \(2\) of the axis \(1\) of the Value \('\[2 x 2 x 5\]'\)"):
        (x * 1).eval({x: C.asvalue(x, [np.array([T]), np.array([T, T])])})
    with pytest.raises(ValueError, match="do not form one array"):
        C.asvalue(_var(0), [np.array([T]), np.array([T, T])])


@pytest.mark.parametrize("n_dynamic, data, value_shape, sequences", [
    (2, [sp.csr_matrix([[1., 0, 2], [2, 3, 0]]), sp.csr_matrix([5., 0, 1])], (2, 2, 3), [(2, 3), (1, 3)]),
    (2, sp.csr_matrix([[1., 0, 2], [0, 0, 1]]), (2, 3), [(2, 3)]),
    (1, [sp.csr_matrix([1., 0, 2]), sp.csr_matrix([5., 0, 1])], (2, 1, 3), [(1, 3), (1, 3)]),
    (1, [sp.csr_matrix([[1., 0, 2], [2, 3, 0]]), sp.csr_matrix([[5., 0, 1], [2, 3, 0]])], (2, 2, 3),
     [(2, 3), (2, 3)]),
    (1, [sp.csr_matrix([[1., 0, 2], [2, 3, 4]])], (1, 2, 3), [(2, 3)]),
    (0, sp.csr_matrix([1., 0, 2]), (1, 3), [(1, 3)]),
])
def test_sparse_layout_matches_cntk(n_dynamic, data, value_shape, sequences):
    x = _var(n_dynamic, 3, is_sparse=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        val = C.asvalue(x, data)
    assert val.shape == value_shape and val.is_sparse
    parts = val.as_sequences(x)
    assert all(isinstance(p, sp.csr_matrix) for p in parts) and [p.shape for p in parts] == sequences


def test_sparse_lists_without_dynamic_axes_are_refused():
    with pytest.raises(ValueError, match="one CSR matrix per sequence"):
        C.asvalue(_var(0, 3, is_sparse=True), [sp.csr_matrix([1., 0, 2])])


def test_seq_starts_give_sequences_from_an_array_and_are_refused_for_one_csr_matrix():
    s = C.sequence.input_variable(3)
    val = C.Value.create(s, np.ones((2, 2, 3), np.float32), seq_starts=[True, False])
    assert val.shape == (2, 2, 3)
    np.testing.assert_array_equal(val.mask, [[2, 1], [1, 1]])
    with pytest.raises(ValueError, match="seq_starts cannot be used with data given as a single"):
        C.Value.create(s, sp.csr_matrix(np.ones((2, 3), np.float32)), seq_starts=[True])


def test_value_create_of_ndarrayviews_one_per_sequence_feeds_a_free_dimension_input():
    # each view has the input's shape: a sequence of one step; fed to (free, 2, 3) the step axis drops
    x = C.input_variable((C.FreeDimension, 2, 3))
    views = [C.NDArrayView.from_dense(np.full((2, 2, 3), k, np.float32)) for k in (1, 2)]
    data = C.Value.create(C.input_variable((2, 2, 3)), views).data
    assert data.shape == (2, 1, 2, 2, 3)
    out = (x * 1).eval({x: data})
    assert out.shape == (2, 2, 2, 3) and out[1].min() == 2
