"""past_value / future_value (and so every Recurrence) step along a sequence: as in CNTK 2.7, an operand without
exactly one sequence axis and one batch axis is refused when the graph is composed, not computed along a static
axis or refused only at eval."""
import numpy as np
import pytest

import cntk as C


@pytest.mark.parametrize("delay", [C.sequence.past_value, C.sequence.future_value])
def test_delay_of_non_sequence_input_is_refused(delay):
    x = C.input_variable(3, name="frames")
    with pytest.raises(RuntimeError, match=r"Input\('frames', \[#\], \[3\]\) with #dynamic axes != 2"):
        delay(x)


def test_recurrence_over_non_sequence_input_is_refused_when_composed():
    x = C.input_variable(3)
    with pytest.raises(RuntimeError, match="1 sequence axis and 1 batch axis"):
        C.layers.Sequential([C.layers.Recurrence(C.layers.LSTM(4)), C.layers.Dense(2)])(x)


def test_recurrence_over_sequence_input_still_composes_and_runs():
    x = C.sequence.input_variable(3)
    z = C.layers.Recurrence(C.layers.LSTM(4))(x)
    out = z.eval({x: [np.ones((2, 3), np.float32)]})
    assert np.asarray(out).shape[-2:] == (2, 4)
    y = C.sequence.past_value(x, time_step=1)
    np.testing.assert_array_equal(y.eval({x: [np.arange(6, dtype=np.float32).reshape(2, 3)]})[0],
                                  [[0, 0, 0], [0, 1, 2]])




def test_the_where_axis_alone_counts_as_a_sequence_of_a_batch():
    # sequence.where's output carries its new axis alone in cntk-compat (CNTK: [#, whereNodeDynamicAxis...]);
    # CNTK_204's greedy decoder (UnfoldFrom with length_increase=1.5) delays such a state and failed to compose.
    # Any other single dynamic axis is still refused, as by CNTK
    where_alone = C.input_variable(3, dynamic_axes=[C.Axis("whereNodeDynamicAxis_conditionVar_test")])
    assert C.sequence.past_value(where_alone).shape == (3,)
    with pytest.raises(RuntimeError, match="#dynamic axes != 2"):
        C.sequence.past_value(C.input_variable(3, dynamic_axes=[C.Axis("my_axis")]))


def test_a_loop_whose_delayed_value_is_typed_late_closes():
    # the delay's operand passes through a batch-only type while the loop's types settle (a broadcast_as of a
    # non-sequence value onto the loop itself); only the settled type is checked
    a = C.input_variable(1)
    b = C.sequence.input_variable(1)
    state = C.placeholder()
    out = C.sequence.broadcast_as(a * 2, C.sequence.past_value(state, time_step=2) + b)
    out.replace_placeholder(out)
    res = out.eval({a: np.array([[1], [3]], np.float32),
                    b: [np.array([[1]], np.float32), np.array([[1], [1], [1]], np.float32)]})
    np.testing.assert_array_equal(res[0], [[2]])
    np.testing.assert_array_equal(res[1], [[6], [6], [6]])
