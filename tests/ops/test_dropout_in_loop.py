"""A dropout inside a recurrent loop (on the delayed state, as Keras' recurrent_dropout puts it) is applied step
by step, as CNTK 2.7 does: CNTK's loop runs over its packed layout one time step of all slots at a time, each step
drawing its slots' masks in the node's stream, so the masks and the trained weights are CNTK's, also where two
sequences share a packing slot. Before, the lowering refused it ("Dropout cannot be used inside a recurrent
loop"). Golden numbers printed by CNTK 2.7."""
import numpy as np

import cntk as C

EVAL = [[0.0, 0.09967, 0.19738], [0.31826, 0.40507, 0.48516], [0.61743, 0.67553, 0.7263], [0.80119, 0.83424, 0.86222]]
TRAINED = [
    [0.09595, 0.09482, 0.09566, 0.08532, 0.08775, 0.08956, 0.08381, 0.08391, 0.08613],
    [0.0932, 0.09255, 0.09382, 0.08491, 0.08742, 0.0893, 0.08058, 0.08125, 0.08397],
    [0.09039, 0.09026, 0.09196, 0.0814, 0.08455, 0.08703, 0.08047, 0.08117, 0.08397],
]
RAGGED = [0.07346, 0.0735, 0.07551, 0.06447, 0.06779, 0.07059, 0.06354, 0.06441, 0.06752]


def _loop():
    x = C.sequence.input_variable(3)
    ph = C.placeholder(shape=(3,))
    w = C.parameter((3, 3), init=np.full((3, 3), 0.1, np.float32))
    h = C.tanh(C.times(C.dropout(C.sequence.past_value(ph), 0.5, seed=7), w) + x)
    h.replace_placeholders({ph: h.output})
    return x, w, h


def test_dropout_in_a_loop_evaluates_without_dropping():
    x, _, h = _loop()
    data = [np.arange(12, dtype=np.float32).reshape(4, 3) / 10 + i for i in range(3)]
    np.testing.assert_allclose(h.eval({x: data})[0], EVAL, atol=1e-5)


def test_dropout_in_a_loop_trains_with_cntks_masks():
    x, w, h = _loop()
    data = [np.arange(12, dtype=np.float32).reshape(4, 3) / 10 + i for i in range(3)]
    loss = C.reduce_sum(C.sequence.last(h))
    trainer = C.Trainer(h, (loss, None), [C.sgd(h.parameters, C.learning_parameter_schedule(0.1))])
    for expected in TRAINED:
        trainer.train_minibatch({x: data})
        np.testing.assert_allclose(w.value.ravel(), expected, atol=1e-5)
    trainer.train_minibatch({x: [np.ones((2, 3), np.float32), np.ones((4, 3), np.float32) * 0.5]})
    np.testing.assert_allclose(w.value.ravel(), RAGGED, atol=1e-5)


# CNTK 2.7's masks of a dropout on the delayed state, over minibatches whose sequences share packing slots
# (lengths 2, 2, 4: the second sequence runs in the first one's slot after it), recovered from each step's output
SHARED_SLOT_MASKS = {
    'past': [
        [[[1, 1, 0], [1, 1, 0]], [[0, 0, 1], [1, 0, 1]], [[1, 0, 0], [1, 1, 1], [0, 1, 1], [0, 0, 0]]],
        [[[0, 0, 0], [1, 0, 0]], [[0, 1, 1], [1, 0, 1], [1, 0, 1], [1, 0, 0]]],
        [[[1, 1, 0], [0, 0, 1], [0, 1, 1], [1, 0, 1]], [[1, 1, 1], [0, 0, 0]], [[0, 0, 0], [0, 1, 1]]],
        [[[1, 1, 0]], [[0, 0, 1]], [[0, 1, 0]], [[0, 0, 0], [0, 1, 0], [1, 0, 0]]],
        [[[1, 1, 0], [0, 1, 0], [1, 1, 0]], [[0, 1, 1]], [[0, 0, 0], [0, 1, 0]]],
        [[[0, 0, 1], [1, 1, 1]], [[1, 0, 0], [1, 1, 0]], [[0, 1, 1], [1, 0, 0], [0, 0, 0], [0, 0, 0]]]],
    'future': [
        [[[1, 0, 1], [0, 0, 1]], [[1, 1, 0], [1, 1, 0]], [[0, 0, 0], [0, 1, 1], [1, 1, 1], [1, 0, 0]]],
        [[[1, 0, 0], [1, 0, 0]], [[1, 0, 0], [1, 0, 1], [1, 0, 1], [0, 1, 1]]],
        [[[1, 0, 1], [0, 1, 1], [0, 0, 1], [1, 1, 0]], [[0, 1, 1], [0, 0, 0]], [[0, 0, 0], [1, 1, 1]]],
        [[[0, 1, 0]], [[0, 0, 1]], [[1, 1, 0]], [[1, 0, 0], [0, 1, 0], [0, 0, 0]]],
        [[[1, 1, 0], [0, 1, 0], [1, 1, 0]], [[0, 1, 0]], [[0, 0, 0], [0, 1, 1]]],
        [[[1, 1, 0], [1, 0, 0]], [[1, 1, 1], [0, 0, 1]], [[0, 0, 0], [0, 0, 0], [1, 0, 0], [0, 1, 1]]]],
}


def test_dropout_in_a_loop_over_sequences_sharing_a_slot_draws_cntks_masks():
    for direction, expected in SHARED_SLOT_MASKS.items():
        x = C.sequence.input_variable(3)
        ph = C.placeholder(shape=(3,))
        p = C.parameter((1,), init=1.0)
        delay = C.sequence.past_value if direction == 'past' else C.sequence.future_value
        h = x + C.dropout(delay(ph, initial_state=1.0), 0.5, seed=7) * 1e-3
        h.replace_placeholders({ph: h.output})
        edge = C.sequence.last if direction == 'past' else C.sequence.first
        trainer = C.Trainer(h, (C.reduce_sum(edge(h) * p), None), [C.sgd([p], C.learning_parameter_schedule(0.0))])
        for lengths, masks in zip([(2, 2, 4), (2, 4), (4, 2, 2), (1, 1, 1, 3), (3, 1, 2), (2, 2, 4)], expected):
            data = [np.full((n, 3), 10.0 * (i + 1), np.float32) + np.arange(n, dtype=np.float32)[:, None]
                    for i, n in enumerate(lengths)]
            out = trainer.train_minibatch({x: data}, outputs=[h])[1][h]
            assert [((a - d) != 0).astype(int).tolist() for a, d in zip(out, data)] == masks, (direction, lengths)
