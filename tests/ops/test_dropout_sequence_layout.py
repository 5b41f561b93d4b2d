"""Dropout over sequences draws CNTK 2.7's masks: CNTK packs the minibatch's sequences into parallel slots as
long as the longest (each, in order, into the first slot with room at its end), lays them out time-major with
the gaps and draws one value per element of that layout. The masks below were printed by CNTK 2.7 (CPU) for a
dropout(rate 0.5, seed 7) over 4-element samples, trained twice (the second call goes on in the node's stream)."""
import numpy as np
import pytest

import cntk as C

CNTK27 = {
    (3, 5, 2): ["110101111110 00110010100011101001 00000101",
                "011011011000 01001100011010110000 00101100"],
    (5, 5): ["11010111111000000101 00110010100011101001",
             "01101101100000101100 01001100011010110000"],
    (2, 7, 3, 1): ["11010111 0011001010001110100101001100 111000000101 0110",
                   "10000010 0110101100000101001100110010 110010100011 0100"],
}


def _masks(lengths, feed):
    x = C.sequence.input_variable(4)
    p = C.parameter((4,), init=1)
    d = C.dropout(x * p, 0.5, seed=7)
    loss = C.sequence.reduce_sum(C.reduce_sum(d))
    trainer = C.Trainer(d, (loss, None), C.sgd([p], C.learning_parameter_schedule(0.0)))
    out = []
    for _ in range(2):
        _, o = trainer.train_minibatch({x: feed(x, lengths)}, outputs=[d.output])
        out.append(" ".join("".join(str(int(v)) for v in (s.reshape(-1) > 0)) for s in o[d.output]))
    return out


def _from_lists(x, lengths):
    return [np.ones((n, 4), np.float32) for n in lengths]


@pytest.mark.parametrize("lengths", sorted(CNTK27))
def test_masks_over_sequences_of_a_list_are_cntks(lengths):
    assert _masks(lengths, _from_lists) == CNTK27[lengths]


def test_masks_over_sequences_of_a_reader_are_cntks(tmp_path):
    lengths = (3, 5, 2)
    path = tmp_path / "seq.ctf"
    path.write_text("".join("%d |x 1 1 1 1\n" % i for i, n in enumerate(lengths) for _ in range(n)))

    def from_reader(x, lengths):
        src = C.io.MinibatchSource(C.io.CTFDeserializer(str(path), C.io.StreamDefs(x=C.io.StreamDef('x', shape=4))),
                                   randomize=False)
        return src.next_minibatch(sum(lengths), input_map={x: src.streams.x})[x]

    assert _masks(lengths, from_reader)[0] == CNTK27[lengths][0]


def test_one_step_sequences_mask_the_batch_in_order():
    # all of length 1: one slot each, the batch order (as without a sequence axis)
    x = C.sequence.input_variable(4)
    y = C.input_variable(4)
    outs = []
    for v, data in ((x, [np.ones((1, 4), np.float32)] * 3), (y, np.ones((3, 4), np.float32))):
        p = C.parameter((4,), init=1)
        d = C.dropout(v * p, 0.5, seed=7)
        trainer = C.Trainer(d, (C.reduce_sum(d), None), C.sgd([p], C.learning_parameter_schedule(0.0)))
        _, o = trainer.train_minibatch({v: data}, outputs=[d.output])
        outs.append(np.concatenate([np.asarray(s).reshape(-1) for s in o[d.output]]) > 0)
    assert (outs[0] == outs[1]).all()
