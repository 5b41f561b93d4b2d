"""Types of graphs on placeholders as CNTK 2.7 reports them: an elementwise op beside an operand on dynamic axes
guesses the known shape (unless a dimension of 1 leaves it open); a recurrence over an untyped input has unknown
shape and axes; a loss on such a model lists the model's placeholder first."""
import numpy as np

import cntk as C
from cntk.layers import Dense, Embedding, Fold, GRU, LSTM, Recurrence, Sequential


def _shapes(f):
    return f.output.shape, [a.name for a in f.output.dynamic_axes]


def test_elementwise_beside_an_unknown_operand():
    assert _shapes(C.placeholder() + C.sequence.input_variable(3)) == ((3,), ['defaultBatchAxis',
                                                                             'defaultDynamicAxis'])
    assert _shapes(C.input_variable((2, 3)) * C.placeholder()) == ((2, 3), ['defaultBatchAxis'])
    assert _shapes(C.placeholder() + C.input_variable(1))[0] == (-2,)
    assert _shapes(C.placeholder() + C.parameter(3)) == ((-2,), ['UnknownAxes'])
    assert _shapes(C.splice(C.placeholder(), C.input_variable(3)))[0] == (-2,)


def test_recurrence_over_an_untyped_input_is_untyped():
    for model in [Fold(GRU(128)), Recurrence(LSTM(3)), Sequential([Embedding(300), Fold(GRU(128)), Dense(10)])]:
        assert _shapes(model) == ((-2,), ['UnknownAxes'])
    assert str(Sequential([Embedding(300), Fold(GRU(128)), Dense(10)])) == \
        "Composite(keep: Sequence[tensor]) -> Sequence[tensor]"
    r = Recurrence(GRU(3))(C.placeholder())
    assert _shapes(r + C.sequence.input_variable(3))[0] == (3,)


def test_a_loss_on_an_untyped_model_lists_the_placeholder_first_and_trains_after_typing():
    model = Sequential([Embedding(8), Recurrence(LSTM(4)), Dense(3)])
    y = C.sequence.input_variable(3)
    loss = C.cross_entropy_with_softmax(model, y)
    assert [a.is_placeholder for a in loss.arguments] == [True, False]
    assert loss.output.shape == (-2,)
    x = C.sequence.input_variable(5)
    loss.replace_placeholders({loss.arguments[0]: x})
    value = loss.eval({x: [np.eye(5, dtype=np.float32)[:2]], y: [np.eye(3, dtype=np.float32)[:2]]})
    assert np.asarray(value).reshape(-1).shape == (2,)
