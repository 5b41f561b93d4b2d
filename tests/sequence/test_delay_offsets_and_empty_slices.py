"""past_value/future_value offsets and sequence.slice results as CNTK 2.7 gives them (golden values from it): a
time_step of 0 is the operand itself, a negative or non-integer one is refused by the binding
(NotImplementedError); a sequence.slice that leaves a sequence without steps fails when evaluated (RuntimeError)."""
import numpy as np
import pytest

import cntk as C

S = [np.arange(6, dtype=np.float32).reshape(3, 2), np.array([[5, -1]], dtype=np.float32)]


@pytest.mark.parametrize("delay", [C.sequence.past_value, C.sequence.future_value])
def test_time_step_zero_is_the_operand(delay):
    s = C.sequence.input_variable((2,))
    for init in (None, 1.5, np.array([7, 8], np.float32)):
        got = (delay(s, time_step=0) if init is None else delay(s, init, time_step=0)).eval({s: S})
        assert all(np.array_equal(g, d) for g, d in zip(got, S))


@pytest.mark.parametrize("step", [-1, 1.5, 2.0])
def test_time_step_must_be_a_non_negative_integer(step):
    s = C.sequence.input_variable((2,))
    with pytest.raises(NotImplementedError):
        C.sequence.past_value(s, time_step=step)


@pytest.mark.parametrize("begin,end", [(1, 0), (0, -1), (2, 3)])
def test_slice_that_empties_a_sequence_fails_when_evaluated(begin, end):
    s = C.sequence.input_variable((2,))
    f = C.sequence.slice(s, begin, end)
    with pytest.raises(RuntimeError):
        f.eval({s: S})


def test_slice_that_keeps_a_step_of_each():
    s = C.sequence.input_variable((2,))
    np.testing.assert_array_equal(C.sequence.slice(s, -1, 0).eval({s: S}), [[4, 5], [5, -1]])
    got = C.sequence.slice(s, 0, 2).eval({s: S})
    np.testing.assert_array_equal(got[0], [[0, 1], [2, 3]])
    np.testing.assert_array_equal(got[1], [[5, -1]])
