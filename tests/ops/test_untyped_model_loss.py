"""A loss on an untyped model (a placeholder below it) lists the model's placeholder first, as CNTK 2.7 does, and
trains once the placeholder is replaced."""
import numpy as np

import cntk as C
from cntk.layers import Dense, Embedding, LSTM, Recurrence, Sequential


def test_a_loss_on_an_untyped_model_lists_the_placeholder_first_and_trains_after_typing():
    model = Sequential([Embedding(8), Recurrence(LSTM(4)), Dense(3)])
    y = C.sequence.input_variable(3)
    loss = C.cross_entropy_with_softmax(model, y)
    assert [a.is_placeholder for a in loss.arguments] == [True, False]
    x = C.sequence.input_variable(5)
    loss.replace_placeholders({loss.arguments[0]: x})
    value = loss.eval({x: [np.eye(5, dtype=np.float32)[:2]], y: [np.eye(3, dtype=np.float32)[:2]]})
    assert np.asarray(value).reshape(-1).shape == (2,)
