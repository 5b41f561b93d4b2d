"""reconcile_dynamic_axes onto a layout without a sequence axis (CNTK_303: the last items of query and answer
sequences, which lie on different sequence axes, meet in one loss)."""
import numpy as np
import pytest

import cntk as C


def _last_items():
    q = C.sequence.input_variable(3, sequence_axis=C.Axis("q"))
    a = C.sequence.input_variable(3, sequence_axis=C.Axis("a"))
    return q, a, C.sequence.last(q), C.sequence.last(a)


def test_values_from_sequences_on_different_axes_are_reconciled():
    q, a, q_last, a_last = _last_items()
    loss = C.cosine_distance(C.reconcile_dynamic_axes(q_last, a_last), a_last)
    data = {q: [np.ones((2, 3), np.float32), np.arange(3, dtype=np.float32)[None]],
            a: [np.ones((4, 3), np.float32), np.ones((1, 3), np.float32)]}
    np.testing.assert_allclose(loss.eval(data).ravel(), [1.0, 0.7745967], rtol=1e-6)  # real CNTK 2.7's values
    # a constant is repeated per sample of the layout
    c = C.reconcile_dynamic_axes(C.constant(np.array([1.0, 2.0, 3.0], np.float32)), a_last)
    np.testing.assert_array_equal(c.eval({a: data[a]}), [[1, 2, 3], [1, 2, 3]])


def test_different_sample_counts_are_an_error():
    q, a, q_last, a_last = _last_items()
    r = C.reconcile_dynamic_axes(q_last, a_last)
    with pytest.raises(ValueError, match="different numbers of samples"):
        r.eval({q: [np.ones((2, 3), np.float32)] * 2, a: [np.ones((1, 3), np.float32)]})
