"""truncation_length: sequences cut into pieces for truncated BPTT, slots continuing across minibatches."""
import numpy as np
import pytest

import cntk as C
from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs

TWO_SEQUENCES = ''.join('0 |a %d |b %d\n' % (v, -v) for v in range(5)) + \
    ''.join('1 |a %d |b %d\n' % (v, -v) for v in (10, 11, 12))


def source(tmp_path, text=TWO_SEQUENCES, **kw):
    path = tmp_path / 'seq.ctf'
    path.write_text(text)
    return MinibatchSource(CTFDeserializer(str(path), StreamDefs(
        a=StreamDef(field='a', shape=1), b=StreamDef(field='b', shape=1))), randomize=False, **kw)


def lengths_text(lengths):
    """Sequences of these lengths holding the values 1, 2, 3, ... in order in 'a' (their negatives in 'b')."""
    lines, value = [], 0
    for k, n in enumerate(lengths):
        for _ in range(n):
            value += 1
            lines.append('%d |a %d |b %d\n' % (k, value, -value))
    return ''.join(lines)


EIGHT = lengths_text((5, 3, 7, 2, 4, 6, 1, 3))   # the values 1 .. 31


def summary(mb, src):
    """(sequences, samples, end of sweep, shape, sum of the values, mask, values) of stream 'a', as the probes
    printed them under CNTK 2.7; 'none' where the minibatch has no mask, 'error' where it refuses to unpack."""
    d = mb[src['a']]
    x = C.sequence.input_variable(1)
    total = float(np.asarray(C.reduce_sum(x, axis=C.Axis.all_axes()).eval({x: d})).ravel()[0])
    try:
        mask = np.asarray(d.mask).astype(int).tolist()
    except AttributeError:
        mask = 'none'
    except RuntimeError:
        mask = 'error'
    try:
        values = [s.ravel().tolist() for s in d.as_sequences()]
    except RuntimeError:
        values = 'error'
    return d.num_sequences, d.num_samples, d.end_of_sweep, d.shape[:2], total, mask, values


E = 'error'
# CNTK 2.7, truncation_length=2, minibatches of 4 samples (2 slots): each slot reads ahead while it holds no more
# than 2 samples not yet delivered, so slot 1 takes sequences 2, 5 while slot 0 takes 3, 4, 6, 7
EIGHT_BY_4 = [
    (2, 4, False, (2, 2), 16.0, 'none', [[1, 2], [6, 7]]),
    (3, 4, False, (3, 2), 24.0, E, E),
    (3, 4, False, (3, 2), 42.0, E, E),
    (3, 4, False, (3, 2), 60.0, E, E),
    (2, 4, False, (2, 2), 68.0, [[1, 1], [1, 1]], [[19, 20], [14, 15]]),
    (3, 4, False, (3, 2), 94.0, E, E),
    (2, 4, False, (2, 2), 108.0, [[2, 1], [1, 1]], [[29, 30], [24, 25]]),
    (3, 4, True, (3, 2), 85.0, E, E),
    (2, 4, False, (2, 2), 18.0, [[1, 1], [2, 1]], [[2, 3], [6, 7]]),
    (3, 4, False, (3, 2), 33.0, E, E),
]


def test_slots_read_ahead_as_cntks(tmp_path):
    src = source(tmp_path, EIGHT, truncation_length=2, max_sweeps=2)
    assert [summary(src.next_minibatch(4), src) for _ in EIGHT_BY_4] == EIGHT_BY_4


@pytest.mark.parametrize('lengths,expected', [
    # the sweep ends in the minibatch holding the last sample of its last sequence, whenever the slots read it
    ((6, 1), [(3, 4, True, (3, 2), 11.0, [[2, 1], [2, 0], [2, 0]], [[1, 2], [7], [1]]),
              (2, 4, False, (2, 2), 12.0, [[1, 1], [1, 1]], [[3, 4], [2, 3]]),
              (2, 4, False, (2, 2), 20.0, [[1, 1], [1, 1]], [[5, 6], [4, 5]]),
              (2, 2, True, (2, 2), 13.0, [[2, 0], [1, 0]], [[7], [6]])]),
    ((1, 6), [(4, 4, False, (4, 2), 6.0, [[2, 0], [2, 0], [2, 0], [2, 0]], [[1], [2], [1], [2]]),
              (2, 4, False, (2, 2), 14.0, [[1, 1], [1, 1]], [[3, 4], [3, 4]]),
              (2, 4, False, (2, 2), 22.0, [[1, 1], [1, 1]], [[5, 6], [5, 6]]),
              (2, 2, True, (2, 2), 14.0, [[1, 0], [1, 0]], [[7], [7]])]),
])
def test_sweep_ends_and_padding_to_the_truncation_length(tmp_path, lengths, expected):
    src = source(tmp_path, lengths_text(lengths), truncation_length=2, max_sweeps=2)
    assert [summary(src.next_minibatch(4), src) for _ in expected] == expected
    assert not src.next_minibatch(4)


@pytest.mark.parametrize('sizes,expected', [
    # CNTK 2.7 drops what the slots read ahead when the minibatch size changes (its reader repositions there)
    ([4, 5, 4, 4, 4], [(2, 4, False, (2, 2), 16.0, 'none', [[1, 2], [6, 7]]),
                       (2, 4, False, (2, 2), 52.0, 'none', [[9, 10], [16, 17]]),
                       (3, 4, False, (3, 2), 102.0, [[2, 1], [2, 0], [2, 0]], [[22, 23], [28], [29]]),
                       (2, 4, True, (2, 2), 110.0, [[1, 1], [1, 1]], [[24, 25], [30, 31]]),
                       (2, 4, False, (2, 2), 56.0, [[1, 1], [2, 1]], [[26, 27], [1, 2]])]),
    ([2, 2, 6, 6, 2, 2, 2], [(1, 2, False, (1, 2), 3.0, 'none', [[1, 2]]),
                             (1, 2, False, (1, 2), 7.0, [[1, 1]], [[3, 4]]),
                             (3, 6, False, (3, 2), 65.0, 'none', [[6, 7], [9, 10], [16, 17]]),
                             (4, 6, False, (4, 2), 90.0, E, E),
                             (2, 2, False, (2, 2), 57.0, [[2, 0], [2, 0]], [[28], [29]]),
                             (1, 2, True, (1, 2), 61.0, [[1, 1]], [[30, 31]]),
                             (1, 2, False, (1, 2), 3.0, 'none', [[1, 2]])]),
])
def test_another_minibatch_size_starts_with_empty_slots(tmp_path, sizes, expected):
    src = source(tmp_path, EIGHT, truncation_length=2, max_sweeps=2)
    got = []
    for size in sizes:
        mb = src.next_minibatch(size)
        got.append(summary(mb, src))
        assert mb[src['a']].data.shape[:2] == got[-1][3]   # the Value spans the truncation length too
    assert got == expected


def test_unpacking_refused_where_cntk_refuses(tmp_path):
    src = source(tmp_path, EIGHT, truncation_length=2, max_sweeps=2)
    src.next_minibatch(4)
    d = src.next_minibatch(4)[src['a']]
    for read in (lambda: d.mask, d.as_sequences, d.asarray):
        with pytest.raises(RuntimeError, match='^Cannot create an unpacked Value object from packed data where '
                                               'one or more sequences are truncated$'):
            read()


def test_a_restored_checkpoint_starts_with_empty_slots(tmp_path):
    # CNTK 2.7's checkpoint is the reader's position after the sequences the slots read ahead
    src = source(tmp_path, EIGHT, truncation_length=2)
    src.next_minibatch(4)
    src.next_minibatch(4)
    state = src.get_checkpoint_state()
    assert [summary(src.next_minibatch(4), src)[4] for _ in range(2)] == [42.0, 60.0]
    expected = [(2, 4, False, (2, 2), 78.0, 'none', [[16, 17], [22, 23]]),
                (2, 4, False, (2, 2), 86.0, [[2, 1], [1, 1]], [[18, 19], [24, 25]])]
    fresh = source(tmp_path, EIGHT, truncation_length=2)
    fresh.restore_from_checkpoint(state)
    assert [summary(fresh.next_minibatch(4), fresh) for _ in range(2)] == expected
    src.restore_from_checkpoint(state)
    assert [summary(src.next_minibatch(4), src) for _ in range(2)] == expected


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


@pytest.mark.parametrize('part,expected', [
    # CNTK 2.7: two minibatches read whole (a distributed warm start), then each worker's partition of the next
    # ones; samples/sequences/sum of the values. The workers of the reader's first minibatch count: 1, so each
    # worker keeps the 3 slots of a minibatch of 12 (not 2 and 1)
    (0, ['12/3/1218', '12/3/1266', '12/3/2418', '12/3/2466', '12/6/2454', '12/3/2442']),
    (1, ['12/3/1218', '12/3/1266', '12/3/3618', '12/3/3666', '12/6/3654', '12/3/3642']),
])
def test_after_a_warm_start_read_whole_each_worker_keeps_the_slots(tmp_path, part, expected):
    src = source(tmp_path, SIX_SEQUENCES, truncation_length=4)
    x = C.sequence.input_variable(1)
    got = []
    for k in range(6):
        parts, index = (1, 0) if k < 2 else (2, part)
        d = src.next_minibatch(12, num_data_partitions=parts, partition_index=index)[src['a']]
        total = float(np.asarray(C.reduce_sum(x, axis=C.Axis.all_axes()).eval({x: d})).ravel()[0])
        got.append('%d/%d/%g' % (d.num_samples, d.num_sequences, total))
    assert got == expected


def test_more_workers_than_slots_is_cntks_error(tmp_path):
    src = source(tmp_path, SIX_SEQUENCES, truncation_length=4)
    with pytest.raises(ValueError, match=r'^Too many workers for minibatch size; please increase minibatch size '
                                         r'or decrease number of workers\.'):
        src.next_minibatch(8, num_data_partitions=3, partition_index=0)
