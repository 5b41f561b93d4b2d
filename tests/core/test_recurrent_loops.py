"""Recurrent loops: replace_placeholders closing a cycle through past_value/future_value, lowered to a loop
over the time steps of padded sequences."""
import numpy as np
import pytest

import cntk as C

SEQS = [np.array([[1, 2], [3, 4], [5, 6]], np.float32), np.array([[1, 1]], np.float32)]


def _running_sum(x, step=C.sequence.past_value, scale=1.0):
    ph = C.placeholder()
    h = C.plus(x, step(ph) * scale)
    h.replace_placeholders({ph: h.output})
    return h


def test_replace_placeholders_closes_the_loop_in_place_and_infers_shapes():
    x = C.sequence.input_variable(2)
    ph = C.placeholder()
    delayed = C.sequence.past_value(ph)
    h = C.plus(x, delayed)
    same = h.replace_placeholders({ph: h.output})
    assert same is h
    assert delayed.output.shape == (2,) and h.output.shape == (2,)
    assert delayed.root_function.inputs[0] is h.output  # the cycle is real, not a copy
    assert h.arguments == (x,)


def test_past_value_loop_is_a_running_sum_per_sequence():
    x = C.sequence.input_variable(2)
    out = _running_sum(x).eval({x: SEQS})
    np.testing.assert_array_equal(out[0], np.cumsum(SEQS[0], 0))
    np.testing.assert_array_equal(out[1], SEQS[1])


def test_future_value_loop_runs_backwards_from_each_sequence_end():
    x = C.sequence.input_variable(1)
    data = [np.array([[1], [2], [4]], np.float32), np.array([[2], [6]], np.float32)]
    out = _running_sum(x, C.sequence.future_value, 0.5).eval({x: data})
    np.testing.assert_allclose(out[0], [[3], [4], [4]])
    np.testing.assert_allclose(out[1], [[5], [6]])


def test_time_step_two_and_initial_state():
    x = C.sequence.input_variable(1)
    ph = C.placeholder()
    h = C.plus(x, C.sequence.past_value(ph, initial_state=10, time_step=2))
    h.replace_placeholders({ph: h.output})
    out = h.eval({x: [np.arange(1, 6, dtype=np.float32).reshape(5, 1)]})
    # h_t = x_t + h_{t-2}, with h_{-1} = h_{-2} = 10
    np.testing.assert_allclose(out[0].ravel(), [11, 12, 14, 16, 19])


def test_time_step_two_from_a_sequence_initial_state():
    # CNTK 2.7: a loop's delay of time_step k reads the last k items of an initial-state sequence (past_value) or
    # its first k (future_value, counted from its own sequence's end); a sequence of one item is repeated, and one
    # of another length shorter than k is refused
    y = C.sequence.input_variable(1)
    z = C.sequence.input_variable(1)
    data = [np.array([[1], [2], [3], [4]], np.float32), np.array([[10]], np.float32),
            np.array([[100], [200]], np.float32)]
    init = [np.array([[-1], [-2], [-3], [-4]], np.float32), np.array([[-10]], np.float32),
            np.array([[-100], [-200]], np.float32)]
    golden = {C.sequence.past_value: [[-29, -38, -287, -376], [-90], [-900, -1800]],
              C.sequence.future_value: [[-69, -158, -7, -16], [-90], [-900, -1800]]}
    for delay, expected in golden.items():
        ph = C.placeholder(1)
        h = delay(ph, initial_state=z, time_step=2) * 10 + y
        h.replace_placeholders({ph: h})
        out = h.eval({y: data, z: init})
        assert [o.ravel().tolist() for o in out] == expected
        ph = C.placeholder(1)
        h = delay(ph, initial_state=z, time_step=3) * 10 + y
        h.replace_placeholders({ph: h})
        with pytest.raises(RuntimeError, match='operation requires second argument \\(initialState\\) sequences to '
                                               'be either of length 1 or at least as long as the timestep \\(3\\)'):
            h.eval({y: data, z: init})


def test_gradient_flows_through_the_unrolled_steps():
    x = C.sequence.input_variable(1)
    a = C.parameter(shape=(1,), init=0.5)
    ph = C.placeholder()
    h = C.plus(x, C.element_times(a, C.sequence.past_value(ph)))
    h.replace_placeholders({ph: h.output})
    loss = C.sequence.reduce_sum(h)
    xs = np.array([[1.0], [2.0], [3.0]], np.float32)
    grad = loss.grad({x: [xs]}, wrt=[a])
    # h1 = x1, h2 = x2 + a h1, h3 = x3 + a h2; d(h1 + h2 + h3)/da = h1 + h2 + a h1 at a = 0.5
    h1, h2 = 1.0, 2.0 + 0.5 * 1.0
    np.testing.assert_allclose(grad.ravel(), [h1 + h2 + 0.5 * h1], rtol=1e-6)


def test_cloning_a_graph_with_a_loop():
    x = C.sequence.input_variable(2)
    h = _running_sum(x)
    y = C.sequence.input_variable(2)
    cloned = h.clone(C.CloneMethod.share, {x: y})
    np.testing.assert_array_equal(cloned.eval({y: SEQS})[0], np.cumsum(SEQS[0], 0))
    np.testing.assert_array_equal(h.eval({x: SEQS})[0], np.cumsum(SEQS[0], 0))


def test_a_cycle_without_a_delay_is_rejected():
    x = C.sequence.input_variable(1)
    ph = C.placeholder()
    h = C.plus(x, ph)
    h.replace_placeholders({ph: h.output})
    with pytest.raises(ValueError, match="without past_value or future_value"):
        h.eval({x: [np.ones((2, 1), np.float32)]})


def test_replace_placeholders_requires_placeholders():
    x = C.input_variable(1)
    f = x + 1
    with pytest.raises(TypeError, match="not a placeholder"):
        f.replace_placeholders({x: C.input_variable(1)})


def test_whole_sequence_ops_inside_a_loop_are_rejected():
    x = C.sequence.input_variable(1)
    ph = C.placeholder()
    h = C.plus(x, C.sequence.past_value(C.sequence.broadcast_as(C.sequence.first(ph), ph)))
    h.replace_placeholders({ph: h.output})
    with pytest.raises(ValueError, match="cannot be used inside a recurrent loop"):
        h.eval({x: [np.ones((2, 1), np.float32)]})
