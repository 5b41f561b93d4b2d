"""truncation_length: sequences cut into pieces for truncated BPTT, slots continuing across minibatches."""
import numpy as np
import pytest

from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs

TWO_SEQUENCES = ''.join('0 |a %d |b %d\n' % (v, -v) for v in range(5)) + \
    ''.join('1 |a %d |b %d\n' % (v, -v) for v in (10, 11, 12))


def source(tmp_path, text=TWO_SEQUENCES, **kw):
    path = tmp_path / 'seq.ctf'
    path.write_text(text)
    return MinibatchSource(CTFDeserializer(str(path), StreamDefs(
        a=StreamDef(field='a', shape=1), b=StreamDef(field='b', shape=1))), randomize=False, **kw)


def pieces(mb, src, name='a'):
    return [s.ravel().tolist() for s in mb[src[name]].as_sequences()]


def test_slots_continue_their_sequences_and_refill(tmp_path):
    src = source(tmp_path, truncation_length=2, max_sweeps=2)
    mb = src.next_minibatch(4)                      # 4 // 2 = 2 slots: the two sequences side by side
    assert pieces(mb, src) == [[0, 1], [10, 11]]
    assert pieces(mb, src, 'b') == [[0, -1], [-10, -11]]
    with pytest.raises(AttributeError):  # whole sequences of one length: no mask, as in CNTK 2.7
        mb[src['a']].mask
    assert mb[src['a']].num_samples == 4 and not mb[src['a']].end_of_sweep
    mb = src.next_minibatch(4)                      # the second slot's sequence ends: it starts the next one
    assert pieces(mb, src) == [[2, 3], [12], [0]]
    assert np.array_equal(mb[src['a']].mask, [[1, 1], [1, 0], [2, 0]])
    assert mb[src['a']].end_of_sweep
    mb = src.next_minibatch(4)
    assert pieces(mb, src) == [[4], [10], [1, 2]]
    assert np.array_equal(mb[src['a']].mask, [[1, 0], [2, 0], [1, 1]])


def test_one_slot_when_the_minibatch_is_smaller_than_the_truncation(tmp_path):
    src = source(tmp_path, truncation_length=3, max_sweeps=1)
    got = []
    while True:
        mb = src.next_minibatch(2)
        if not mb:
            break
        got.extend(pieces(mb, src))
    assert got == [[0, 1, 2], [3, 4], [10], [11, 12]]


def test_checkpoint_restores_slots_exactly(tmp_path):
    src = source(tmp_path, truncation_length=2)
    src.next_minibatch(4)
    state = src.get_checkpoint_state()
    expected = [pieces(src.next_minibatch(4), src) for _ in range(3)]
    src.next_minibatch(4)
    src.restore_from_checkpoint(state)
    assert [pieces(src.next_minibatch(4), src) for _ in range(3)] == expected
    fresh = source(tmp_path, truncation_length=2)
    fresh.restore_from_checkpoint(state)
    assert [pieces(fresh.next_minibatch(4), fresh) for _ in range(3)] == expected


def test_streams_of_different_lengths_and_frame_mode_are_rejected(tmp_path):
    src = source(tmp_path, text='0 |a 1 |b 1\n0 |a 2\n', truncation_length=2)
    with pytest.raises(ValueError, match='same number of samples, got a: 2, b: 1'):
        src.next_minibatch(4)
    with pytest.raises(ValueError, match='truncation and frame mode are mutually exclusive options'):
        source(tmp_path, truncation_length=2, frame_mode=True)


SIX_SEQUENCES = ''.join('%d |a %d |b 0\n' % (s, 100 * s + t) for s in range(6) for t in range(10))


@pytest.mark.parametrize('size,parts,part,expected', [
    # CNTK 2.7 (6 sequences of 10, truncation 4): the whole minibatch's slots, max(1, size // 4), dealt out
    (8, 2, 0, ['4/1', '4/1', '4/2', '4/1']), (8, 2, 1, ['4/1', '4/1', '4/2', '4/1']),
    (12, 2, 0, ['8/2', '8/2', '8/4', '8/2']), (12, 2, 1, ['4/1', '4/1', '4/2', '4/1']),
    (12, 3, 2, ['4/1', '4/1', '4/2', '4/1']),
])
def test_workers_share_the_slots_of_the_whole_minibatch(tmp_path, size, parts, part, expected):
    src = source(tmp_path, SIX_SEQUENCES, truncation_length=4)
    got = []
    for _ in range(4):
        d = src.next_minibatch(size, num_data_partitions=parts, partition_index=part)[src['a']]
        got.append('%d/%d' % (d.num_samples, d.num_sequences))
    assert got == expected


def test_more_workers_than_slots_is_cntks_error(tmp_path):
    src = source(tmp_path, SIX_SEQUENCES, truncation_length=4)
    with pytest.raises(ValueError, match=r'^Too many workers for minibatch size; please increase minibatch size '
                                         r'or decrease number of workers\.'):
        src.next_minibatch(8, num_data_partitions=3, partition_index=0)
