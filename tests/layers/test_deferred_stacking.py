"""Layers composed before their input dimension is known (CNTK's char-RNN and CMUDict examples stack
LSTMs with For(range(n), lambda: Sequential([Stabilizer(), Recurrence(LSTM(d))])))."""
import numpy as np

import cntk as C
from cntk.layers import LSTM, Dense, Embedding, For, Recurrence, Sequential, Stabilizer


def test_stacked_deferred_lstms_compose_and_infer_from_the_data():
    x = C.sequence.input_variable(10)
    model = Sequential([Embedding(30), Stabilizer(),
                        For(range(2), lambda: Sequential([Stabilizer(), Recurrence(LSTM(16))])), Dense(5)])
    z = model(x)
    # the parameter shapes real CNTK 2.7 reports for this model
    assert sorted(p.shape for p in z.parameters) == sorted(
        [(16, 5), (5,), (64,), (16, 64), (16, 64), (), (64,), (30, 64), (16, 64), (), (), (10, 30)])
    out = z.eval({x: [np.ones((3, 10), np.float32)]})
    assert out[0].shape == (3, 5)


def test_an_elementwise_op_on_a_free_placeholder_stays_unknown():
    stabilized = Stabilizer()
    assert stabilized.outputs[0]._shape is None  # beta (a scalar) * x (unknown) is not a scalar
    lstm = Sequential([Stabilizer(), Recurrence(LSTM(8))])
    w = [p for p in lstm.parameters if p.name == "W"][0]
    assert w._shape == (-1, 32)  # still waiting for the input dimension
    assert lstm(C.sequence.input_variable(3)).shape == (8,)


def test_self_stabilized_recurrence_infers_its_state_shape_through_the_loop():
    # the scalar stabilizer on the recurrent state does not decide the state's shape
    with C.layers.default_options(enable_self_stabilization=True):
        r = Recurrence(LSTM(4))
    assert sorted((p.name, p.shape) for p in r.parameters) == [
        ("H", (4, 16)), ("W", (-1, 16)), ("alpha", ()), ("b", (16,))]
    x = C.sequence.input_variable(3)
    assert r(x).eval({x: [np.ones((2, 3), np.float32)]})[0].shape == (2, 4)


def test_a_loop_whose_only_known_operand_is_a_scalar_still_settles():
    # UnfoldFrom's valid-frames recurrence: (1 - past_value(x)) * h, h starting at the scalar 1
    x = C.sequence.input_variable(1)
    frames = Recurrence(lambda h, v: (1 - C.sequence.past_value(v)) * h, initial_state=1)(x)
    assert frames.shape == (1,)
    out = frames.eval({x: [np.array([[0], [0], [1], [0]], np.float32)]})
    np.testing.assert_array_equal(np.asarray(out).ravel(), [1, 1, 1, 0])


def test_lstm_gates_split_the_last_axis_of_an_input_with_leading_axes():
    # an attention context of shape (1, 1, d) spliced into an LSTM's input (CNTK's seq2seq example)
    x = C.sequence.input_variable((1, 1, 3))
    h = Recurrence(LSTM(4))(x)
    assert h.shape == (1, 1, 4)
    assert h.eval({x: [np.ones((2, 1, 1, 3), np.float32)]})[0].shape == (2, 1, 1, 4)


def test_a_tuple_after_a_multi_output_function_takes_one_output_each():
    # Sequential([..., Fold(LSTM(d), return_full_state=True), (Label('h'), Label('c'))]) as in CMUDict
    x = C.sequence.input_variable(3)
    encode = Sequential([C.layers.Fold(LSTM(4), return_full_state=True), (C.layers.Label("h"), C.layers.Label("c"))])
    z = encode(x)
    assert [o.name for o in z.outputs] == ["h", "c"] and [o.shape for o in z.outputs] == [(4,), (4,)]
    both = Sequential([(C.layers.identity, lambda v: v * 2), C.plus])
    y = C.input_variable(2)
    np.testing.assert_allclose(both(y).eval({y: np.array([[1, 2]], np.float32)}), [[3, 6]])
