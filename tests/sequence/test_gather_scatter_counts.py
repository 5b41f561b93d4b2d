"""sequence.gather and sequence.scatter follow sequence.where's counts, as in CNTK 2.7 (golden values from it): a
step whose condition where repeats is gathered as often, and scatter adds the copies back at its position;
negative or small conditions take a step as where takes it. A gather or where that leaves a sequence empty fails
when evaluated (RuntimeError); sequence ops refuse an operand without a sequence axis."""
import numpy as np
import pytest

import cntk as C

S = [np.arange(10, dtype=np.float32).reshape(5, 2)]
CASES = [
    ([0.3, 0.5, 1.5, 2.7, 0.49], [[0, 1], [4, 5], [4, 5], [6, 7], [6, 7], [8, 9]],
     [[0, 1], [0, 0], [8, 10], [12, 14], [8, 9]]),
    ([0.51, -1, 1, 1.2, 3.0], [[0, 1], [6, 7], [8, 9], [8, 9], [8, 9]],
     [[0, 1], [0, 0], [0, 0], [6, 7], [24, 27]]),
    ([2, 0, 0, 0, 0], [[0, 1], [0, 1]], [[0, 2], [0, 0], [0, 0], [0, 0], [0, 0]]),
]


@pytest.mark.parametrize("condition,gathered,scattered", CASES)
def test_gather_and_scatter_take_where_counts(condition, gathered, scattered):
    s = C.sequence.input_variable((2,))
    c = C.sequence.input_variable(())
    data = {s: S, c: [np.array(condition, np.float32)]}
    np.testing.assert_array_equal(C.sequence.gather(s, c).eval(data)[0], gathered)
    np.testing.assert_array_equal(C.sequence.scatter(C.sequence.gather(s, c), c).eval(data)[0], scattered)


def test_gather_gradient_adds_up_the_copies():
    s = C.sequence.input_variable((2,), needs_gradient=True)
    c = C.sequence.input_variable(())
    g = C.sequence.reduce_sum(C.sequence.gather(s, c)).grad({s: S, c: [np.array([0.3, 0.5, 1.5, 2.7, 0.49],
                                                                                np.float32)]}, wrt=[s])
    np.testing.assert_array_equal(g[0][:, 0], [1, 0, 2, 2, 1])


def test_selection_that_empties_a_sequence_fails():
    s = C.sequence.input_variable((2,))
    c = C.sequence.input_variable(())
    data = {s: [S[0][:3], S[0][:1]], c: [np.array([1, 0, 1], np.float32), np.array([0], np.float32)]}
    for f in (C.sequence.where(c), C.sequence.gather(s, c)):
        with pytest.raises(RuntimeError):
            f.eval({k: v for k, v in data.items() if k in f.arguments})


@pytest.mark.parametrize("op,error", [(C.sequence.first, RuntimeError), (C.sequence.last, RuntimeError),
                                      (C.sequence.is_first, RuntimeError), (C.sequence.is_last, RuntimeError),
                                      (lambda x: C.sequence.slice(x, 0, 1), RuntimeError),
                                      (C.sequence.reduce_sum, ValueError), (C.sequence.reduce_max, ValueError),
                                      (C.sequence.softmax, ValueError), (lambda x: C.sequence.unpack(x, 0), ValueError)])
def test_sequence_ops_refuse_an_operand_without_sequence_axis(op, error):
    with pytest.raises(error):
        op(C.input_variable(2))
