"""A block on a recurrent loop whose body cannot run step by step (it reads a sequence on another axis, or holds
an op on whole sequences that needs no loop state): CNTK 2.7 runs the block's primitives, so those parts are
computed before the loop (cntkx's attention inside a decoder's Recurrence, its weight-dropped LSTM).
Golden values from CNTK 2.7."""
import numpy as np

import cntk as C


def test_attention_over_another_sequence_inside_a_recurrence():
    seq1, seq2 = C.Axis.new_unique_dynamic_axis('seq1'), C.Axis.new_unique_dynamic_axis('seq2')
    e = C.sequence.input_variable(3, sequence_axis=seq1)
    a = C.sequence.input_variable(2, sequence_axis=seq2)

    @C.BlockFunction('Att', '')
    def attend(q, k):
        keys = C.sequence.broadcast_as(C.sequence.unpack(k, padding_value=0, no_mask_output=True), q)
        return C.times(C.softmax(C.times_transpose(q, keys)), keys)

    @C.Function
    def decoder(encoded, target):
        @C.Function
        def step(h, x):
            return C.tanh(attend(h, C.alias(encoded)) + C.splice(x, x, axis=0)[:3] * 0.5)
        return C.layers.Recurrence(step, initial_state=C.constant(np.full((3,), 0.1, np.float32)))(target)

    out = decoder(e, a)
    assert out.shape == (3,)
    ev = [np.arange(6, dtype=np.float32).reshape(2, 3) / 10, np.ones((3, 3), np.float32) / 5]
    av = [np.arange(8, dtype=np.float32).reshape(4, 2) / 10, np.ones((1, 2), np.float32)]
    result = out.eval({e: ev, a: av})
    np.testing.assert_allclose(result[0], [[0.10670254, 0.22170086, 0.23906113], [0.21086083, 0.3222609, 0.34015143],
                                           [0.31101817, 0.41649142, 0.4343184], [0.40445113, 0.50222826, 0.5194631]],
                               rtol=1e-6)
    np.testing.assert_allclose(result[1], [[0.60436773] * 3], rtol=1e-6)


def test_dropout_of_a_parameter_inside_a_step_block():
    H = C.Parameter((3, 3), init=np.float32(np.arange(9).reshape(3, 3) / 20))
    drop = C.layers.Dropout(0.5, seed=3)

    @C.BlockFunction('Step', '')
    def step(h, x):
        return C.tanh(C.times(h, drop(H)) + x)

    a = C.sequence.input_variable(3)
    r = C.layers.Recurrence(step)(a)
    v = [np.arange(6, dtype=np.float32).reshape(2, 3) / 10]
    np.testing.assert_allclose(r.eval({a: v})[0], [[0, 0.099668, 0.19737533], [0.35762748, 0.45343432, 0.53979564]],
                               rtol=1e-6)
    assert r.grad({a: v}, wrt=[H]).sum() != 0
