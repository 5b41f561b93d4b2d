"""Truncated BPTT: past_value carries each slot's last values from one forward call to the next."""
import numpy as np
import pytest
import torch

import cntk as C
from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs

LENGTHS = (5, 3, 7, 1, 4, 6)


def sequences(dim=1):
    rng = np.random.RandomState(7)
    return [rng.uniform(-1, 1, (n, dim)).astype(np.float32) for n in LENGTHS]


def truncated_source(tmp_path, seqs, truncation_length):
    """A reader over seqs, with stream 'i' telling which sequence each sample belongs to."""
    lines = []
    for k, s in enumerate(seqs):
        for row in s:
            lines.append('%d |a %s |i %d\n' % (k, ' '.join('%r' % float(v) for v in row), k))
    path = tmp_path / 'seqs.ctf'
    path.write_text(''.join(lines))
    streams = StreamDefs(a=StreamDef(field='a', shape=seqs[0].shape[1]), i=StreamDef(field='i', shape=1))
    return MinibatchSource(CTFDeserializer(str(path), streams), randomize=False, max_sweeps=1,
                           truncation_length=truncation_length)


def as_list(result):
    return [np.asarray(r) for r in result] if isinstance(result, list) else list(result)


def run_truncated(model, x, tmp_path, seqs, truncation_length, minibatch_size):
    """model's outputs over the reader's pieces, put back together per sequence."""
    src = truncated_source(tmp_path, seqs, truncation_length)
    got = [[] for _ in seqs]
    while True:
        mb = src.next_minibatch(minibatch_size)
        if not mb:
            break
        outputs = as_list(model.eval({x: mb[src['a']]}))
        # the pieces from the Value: MinibatchData.as_sequences refuses truncated pieces, as CNTK 2.7's does
        for ids, out in zip(mb[src['i']].data.as_sequences(), outputs):
            got[int(ids[0, 0])].append(out)
    return [np.concatenate(parts) for parts in got]


def running_sum():
    x = C.sequence.input_variable(1)
    ph = C.placeholder()
    y = x + C.sequence.past_value(ph)
    y.replace_placeholders({ph: y})
    return x, y


@pytest.mark.parametrize('truncation_length,minibatch_size', [(2, 6), (3, 3), (1, 2), (4, 4)])
def test_running_sum_over_truncated_pieces_equals_whole_sequences(tmp_path, truncation_length, minibatch_size):
    x, y = running_sum()
    seqs = sequences()
    got = run_truncated(y, x, tmp_path, seqs, truncation_length, minibatch_size)
    for s, g in zip(seqs, got):
        np.testing.assert_allclose(g, np.cumsum(s, 0), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize('cell', [C.layers.LSTM, C.layers.GRU])
def test_fused_cell_recurrence_over_truncated_pieces_equals_whole_sequences(tmp_path, cell):
    # whole sequences run on the fused forms; continuing pieces send them back to the step loop's carried state
    x = C.sequence.input_variable(2)
    model = C.layers.Recurrence(cell(3))(x)
    seqs = sequences(2)
    whole = as_list(model.eval({x: seqs}))
    got = run_truncated(model, x, tmp_path, seqs, 2, 6)
    for w, g, n in zip(whole, got, LENGTHS):
        np.testing.assert_allclose(g, w[:n], rtol=1e-5, atol=1e-6)


def test_stacked_fused_lstms_over_truncated_pieces_equal_whole_sequences(tmp_path, monkeypatch):
    # two stacked LSTMs run as one two-layer call (where the device does, here forced on the CPU); continuing
    # pieces run them one after the other from the step loops' carried states
    from cntk_compat.core import fused_recurrence
    monkeypatch.setattr(fused_recurrence, "_STACKED_DEVICES", ("cuda", "cpu"))
    x = C.sequence.input_variable(2)
    model = C.layers.Sequential([C.layers.Recurrence(C.layers.LSTM(3)), C.layers.Recurrence(C.layers.LSTM(3))])(x)
    seqs = sequences(2)
    whole = as_list(model.eval({x: seqs}))
    got = run_truncated(model, x, tmp_path, seqs, 2, 6)
    for w, g, n in zip(whole, got, LENGTHS):
        np.testing.assert_allclose(g, w[:n], rtol=1e-5, atol=1e-6)


def test_plain_past_value_with_time_step_2_across_pieces(tmp_path):
    x = C.sequence.input_variable(1)
    delayed = C.sequence.past_value(x, initial_state=-1.0, time_step=2)
    seqs = sequences()
    got = run_truncated(delayed, x, tmp_path, seqs, 3, 6)
    for s, g in zip(seqs, got):
        expected = np.concatenate([np.full((2, 1), -1, np.float32), s])[:len(s)]
        np.testing.assert_array_equal(g, expected)


def test_pieces_shorter_than_the_time_step_keep_the_history():
    x = C.sequence.input_variable(1)
    delayed = C.sequence.past_value(x, time_step=2)
    a = np.arange(1, 6, dtype=np.float32).reshape(5, 1)
    got = [delayed.eval({x: C.Value.create(x, [a[lo:hi]], seq_starts=[lo == 0])})[0]
           for lo, hi in ((0, 1), (1, 2), (2, 5))]
    np.testing.assert_array_equal(np.concatenate(got), [[0], [0], [1], [2], [3]])


def test_value_seq_starts_continue_the_previous_eval_slot_by_slot():
    x, y = running_sum()
    a = np.arange(1, 8, dtype=np.float32).reshape(7, 1)
    b = np.full((6, 1), 10, np.float32)
    first = y.eval({x: C.Value.create(x, [a[:3], b[:2]], seq_starts=[True, True])})
    second = y.eval({x: C.Value.create(x, [a[3:], b[2:]], seq_starts=[False, True])})
    np.testing.assert_array_equal(np.concatenate([first[0], second[0]]), np.cumsum(a, 0))
    np.testing.assert_array_equal(second[1], np.cumsum(b[2:], 0))  # slot 1 starts afresh
    whole = y.eval({x: [a]})
    np.testing.assert_array_equal(np.concatenate([first[0], second[0]]), whole[0])


def test_value_seq_starts_set_the_mask():
    x = C.sequence.input_variable(1)
    v = C.Value.create(x, [np.ones((2, 1), np.float32), np.ones((1, 1), np.float32)], seq_starts=[False, True])
    np.testing.assert_array_equal(v.mask, [[1, 1], [2, 0]])


def test_continuing_without_a_previous_call_is_an_error():
    x, y = running_sum()
    with pytest.raises(ValueError, match='sequence 0 does not start.*slot 0'):
        y.eval({x: C.Value.create(x, [np.ones((2, 1), np.float32)], seq_starts=[False])})


def test_continuing_a_slot_the_previous_call_did_not_have_is_an_error():
    x = C.sequence.input_variable(1)
    delayed = C.sequence.past_value(x)
    one = np.ones((2, 1), np.float32)
    delayed.eval({x: C.Value.create(x, [one], seq_starts=[True])})
    with pytest.raises(ValueError, match='sequence 1 does not start.*slot 1'):
        delayed.eval({x: C.Value.create(x, [one, one], seq_starts=[False, False])})


def test_seq_starts_errors_name_what_is_wrong():
    x = C.sequence.input_variable(1)
    with pytest.raises(ValueError, match='2 sequences, but 1 sequence begin markers'):
        C.Value.create(x, [np.ones((2, 1), np.float32)] * 2, seq_starts=[True])
    with pytest.raises(ValueError, match='no sequence axis'):
        C.Value.create(C.input_variable(1), np.ones((2, 1), np.float32), seq_starts=[True, True])
    from cntk_compat.core.carried_state import SequenceSlots
    with pytest.raises(ValueError, match='sequence 1 continues .* not the first sequence of its slot 0'):
        SequenceSlots([0, 0], [True, False])


def test_reader_pieces_carry_their_slots(tmp_path):
    src = truncated_source(tmp_path, sequences(), 2)
    src.next_minibatch(4)
    value = src.next_minibatch(4)[src['a']].data
    # slot 0: the rest of sequence 0; slot 1: the end of sequence 1, then the start of sequence 2
    assert value.lengths == [2, 1, 1]
    assert value.slots.slots.tolist() == [0, 1, 1]
    assert value.slots.starts.tolist() == [False, False, True]


def test_trainer_truncated_bptt_matches_torch(tmp_path):
    """h_t = tanh(w x_t + u h_{t-1}), loss = sum of h: the gradient of one piece stops at its first step."""
    x = C.sequence.input_variable(1)
    w = C.Parameter((1,), init=0.7)
    u = C.Parameter((1,), init=0.4)
    ph = C.placeholder()
    h = C.tanh(x * w + C.sequence.past_value(ph) * u)
    h.replace_placeholders({ph: h})
    trainer = C.Trainer(h, (h, h), C.sgd([w, u], C.learning_parameter_schedule_per_sample(0.1)))
    seq = np.array([[0.5], [-1.0], [2.0], [0.3], [-0.7]], np.float32)
    src = truncated_source(tmp_path, [seq], 2)
    pieces = []
    while True:
        mb = src.next_minibatch(2)
        if not mb:
            break
        pieces.append(mb[src['a']].as_sequences()[0])
        trainer.train_minibatch({x: mb[src['a']]})

    tw = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    tu = torch.tensor(0.4, dtype=torch.float64, requires_grad=True)
    state = torch.tensor(0.0, dtype=torch.float64)
    for piece in pieces:
        outputs = []
        for v in piece[:, 0].tolist():
            state = torch.tanh(tw * v + tu * state)
            outputs.append(state)
        torch.stack(outputs).sum().backward()
        with torch.no_grad():
            tw -= 0.1 * tw.grad
            tu -= 0.1 * tu.grad
        tw.grad = tu.grad = None
        state = state.detach()  # truncated: no gradient into the previous piece
    assert [len(p) for p in pieces] == [2, 2, 1]
    np.testing.assert_allclose([w.value[0], u.value[0]], [tw.item(), tu.item()], rtol=1e-5)


def test_seq_starts_given_with_the_arguments():
    x, y = running_sum()
    a = np.arange(1, 6, dtype=np.float32).reshape(5, 1)
    first = y.eval(([a[:2]], [True]))
    second = y.eval({x: ([a[2:]], [False])})
    np.testing.assert_array_equal(np.concatenate([first[0], second[0]]), np.cumsum(a, 0))
    with pytest.raises(ValueError, match='both for all arguments and for'):
        y.eval(({x: ([a], [False])}, [True]))


def test_seq_starts_cannot_come_with_a_value_or_a_non_sequence_input():
    x = C.sequence.input_variable(1)
    y = C.sequence.past_value(x)
    value = C.Value.create(x, [np.ones((2, 1), np.float32)])
    with pytest.raises(ValueError, match='cannot be given with a Value'):
        y.eval({x: (value, [True])})
    z = C.input_variable(1) * 2
    with pytest.raises(ValueError, match='no sequence axis'):
        z.eval((np.ones((2, 1), np.float32), [True, True]))
