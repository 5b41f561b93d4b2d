"""A clone of a Function whose root is a Combine keeps a Combine root, as in CNTK 2.7 (also over the outputs of one
node): calling an @Function that returns combine([...]) and CNTK's Recurrence over a one-state step function (GRU,
RNNStep) give a Combine root, as they do in CNTK."""
import numpy as np

import cntk as C


def test_clone_of_a_combine_over_one_node_keeps_the_combine():
    x, y = C.input_variable(3), C.input_variable(3)
    g = C.combine([C.tanh(x).output])
    assert g.root_function.op_name == "Combine"
    assert g.clone(C.CloneMethod.clone).root_function.op_name == "Combine"
    h = g.clone(C.CloneMethod.share, {x: y})
    assert h.root_function.op_name == "Combine" and h.arguments == (y,)
    np.testing.assert_allclose(h.eval({y: np.ones((1, 3), np.float32)}), np.tanh(np.ones((1, 3))), rtol=1e-6)
    assert C.tanh(x).clone(C.CloneMethod.clone).root_function.op_name == "Tanh"


def test_a_called_function_and_a_one_state_recurrence_have_a_combine_root():
    @C.Function
    def f(v):
        return C.combine([C.tanh(v).output])
    assert f(C.input_variable(3)).root_function.op_name == "Combine"
    for cell in (C.layers.GRU(4), C.layers.RNNStep(4), C.layers.LSTM(4)):
        m = C.layers.Recurrence(cell)(C.sequence.input_variable(3))
        assert m.root_function.op_name == "Combine" and m.output.shape == (4,)
