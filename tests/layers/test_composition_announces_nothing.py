"""Working out the types of a graph with loops tries shape rules on types still being guessed and catches their
refusals: CNTK 2.7 composes the same graph without a word, so those refusals are not announced on stderr (an
"About to throw exception" line is CNTK's for an error it raises). A refusal that stands is still announced."""
import numpy as np
import pytest

import cntk as C
from cntk.layers import AttentionModel, Dense, Embedding, LSTM, Recurrence, Sequential, UnfoldFrom
from cntk.layers.typing import SequenceOver, Tensor


def test_a_greedy_attention_decoder_composes_without_announcements(capfd):
    vocab = 8
    embed = Embedding(4)
    encode = Sequential([embed, Recurrence(LSTM(6), return_full_state=True)])
    attention, cell, projection = AttentionModel(6), LSTM(6), Dense(vocab)
    start = C.constant(np.eye(vocab, dtype=np.float32)[0])

    def decoder(history, source):
        encoded = encode(source)

        @C.Function
        def step(h, c, x):
            return cell(h, c, C.splice(x, attention(encoded.outputs[0], h)))
        return projection(Recurrence(step)(embed(history)))

    @C.Function.with_signature(SequenceOver[C.Axis("inputAxis")][Tensor[vocab]])
    def greedy(source):
        unfold = UnfoldFrom(lambda history: decoder(history, source) >> C.hardmax,
                            until_predicate=lambda w: w[..., 1], length_increase=1.5)
        return unfold(initial_state=start, dynamic_axes_like=source)

    assert greedy.shape == (vocab,)
    assert "About to throw exception" not in capfd.readouterr().err


def test_a_refusal_that_stands_is_announced(capfd):
    # the placeholder's replacement types the splice again, and its refusal stands (CNTK 2.7's error and line)
    x, y, p = C.sequence.input_variable(3), C.input_variable(3), C.placeholder()
    f = C.splice(p, y)
    with pytest.raises(RuntimeError, match="has dynamic axes, that do not match"):
        f.replace_placeholders({p: C.sequence.past_value(x)})
    assert capfd.readouterr().err.count("About to throw exception 'Operation 'Splice'") == 1
