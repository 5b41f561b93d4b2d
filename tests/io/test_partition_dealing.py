"""Reading in order with fewer chunks than workers, CNTK 2.7 deals the sequences out by a running count that goes
on across sweeps (a sweep of 7 sequences gives worker 1 of 2 the sweep's first sequence the second time); each
worker fills its share of the minibatch and stops, or passes the other workers' sequences up to its next one when
that one does not fit; a minibatch is flagged as the end of a sweep when the reading passes the sweep's last
sequence, whoever's it is; a minibatch size other than the last one's and a restored checkpoint reposition the
reader, and the count restarts at the sequence's index in its sweep. Golden values: CNTK 2.7, max_sweeps=3
(num_samples, end_of_sweep, first value of each sequence)."""
import pytest

import cntk as C

LENGTHS = [1, 3, 2, 1, 2, 1, 3]

CASES = [
    ('ones', 2, [6, 6, 6, 6], [
        [(3, False, [0, 2, 4]), (3, True, [6, 1, 3]), (3, True, [5, 0, 2]), (2, True, [4, 6])],
        [(3, False, [1, 3, 5]), (3, True, [0, 2, 4]), (3, True, [6, 1, 3]), (1, True, [5])]]),
    ('ones', 2, [3, 3, 3, 3, 3, 3], [
        [(2, False, [0, 2]), (2, True, [4, 6]), (2, False, [1, 3]), (2, True, [5, 0]), (2, False, [2, 4]),
         (1, True, [6])],
        [(1, False, [1]), (1, False, [3]), (1, False, [5]), (1, True, [0]), (1, False, [2]), (1, False, [4])]]),
    ('ones', 3, [5, 5, 5, 5, 5], [
        [(2, False, [0, 3]), (2, True, [6, 2]), (2, True, [5, 1]), (1, True, [4]), None],
        [(2, False, [1, 4]), (2, True, [0, 3]), (2, True, [6, 2]), (1, True, [5]), None],
        [(1, False, [2]), (1, False, [5]), (1, True, [1]), (1, False, [4]), (1, True, [0])]]),
    ('ones', 2, [2, 7, 2, 7, 2], [
        [(1, False, [0]), (4, True, [2, 4, 6, 1]), (1, False, [2]), (4, True, [4, 6, 1, 3]), (1, False, [4])],
        [(1, False, [1]), (3, True, [3, 5, 0]), (1, False, [1]), (3, True, [3, 5, 0]), (1, False, [1])]]),
    ('lengths', 2, [6, 6, 6, 6], [
        [(3, False, [0, 20]), (2, False, [40]), (3, True, [60]), (3, False, [10])],
        [(3, False, [10]), (3, True, [30, 50, 0]), (2, False, [20]), (2, False, [40])]]),
    ('lengths', 3, [5, 5, 5, 5, 5], [
        [(2, False, [0, 30]), (3, True, [60]), (2, False, [20]), (1, True, [50]), (3, False, [10])],
        [(3, False, [10]), (2, False, [40]), (2, True, [0, 30]), (3, True, [60]), (2, False, [20])],
        [(2, False, [20]), (1, False, [50]), (3, True, [10]), (2, False, [40]), (1, True, [0])]]),
    ('lengths', 2, [2, 7, 2, 7, 2], [
        [(1, False, [0]), (4, False, [20, 40]), (3, True, [60]), (3, False, [0, 20]), (2, False, [40])],
        [(3, False, [10]), (3, True, [30, 50, 0]), (3, False, [10]), (3, True, [30, 50, 0]), (3, False, [10])]]),
]


def _file(tmp_path, kind):
    path = tmp_path / (kind + '.ctf')
    if kind == 'ones':
        path.write_text(''.join('%d |x %d\n' % (i, i) for i in range(7)))
    else:
        path.write_text(''.join('%d |x %d\n' % (i, 10 * i + j) for i in range(7) for j in range(LENGTHS[i])))
    return str(path)


def _source(path, **kw):
    return C.io.MinibatchSource(C.io.CTFDeserializer(path, C.io.StreamDefs(x=C.io.StreamDef(field='x', shape=1))),
                                randomize=False, **kw)


def _read(source, size, parts, part):
    mb = source.next_minibatch(size, num_data_partitions=parts, partition_index=part)
    if not mb:
        return None
    data = mb[source.streams.x]
    return data.num_samples, data.end_of_sweep, [int(s[0, 0]) for s in data.as_sequences()]


@pytest.mark.parametrize('kind, parts, sizes, expected', CASES)
def test_sequences_dealt_out_as_cntk27(tmp_path, kind, parts, sizes, expected):
    path = _file(tmp_path, kind)
    for part in range(parts):
        source = _source(path, max_sweeps=3)
        assert [_read(source, size, parts, part) for size in sizes] == expected[part]


@pytest.mark.parametrize('kind, parts, part, before, size, position, after', [
    ('ones', 2, 0, 2, 6, 11, [(3, True, [4, 6, 1]), (3, True, [3, 5, 0]), (3, True, [2, 4, 6])]),
    ('ones', 3, 0, 2, 5, 10, [(2, True, [3, 6]), (2, False, [2, 5]), (2, True, [1, 4])]),
    ('ones', 2, 1, 5, 3, 10, [(1, False, [3]), (1, False, [5]), (1, True, [0])]),
    ('lengths', 2, 1, 3, 6, 20, [(2, True, [50, 0]), (2, False, [20]), (2, False, [40])]),
    ('lengths', 2, 0, 5, 3, 17, [(2, False, [20]), (2, False, [40]), (3, True, [60])]),
])
def test_restored_reader_deals_from_the_index_in_the_sweep(tmp_path, kind, parts, part, before, size, position,
                                                           after):
    path = _file(tmp_path, kind)
    source = _source(path)
    for _ in range(before):
        _read(source, size, parts, part)
    state = source.get_checkpoint_state()
    assert state['minibatchSourcePosition'] == position
    for restored in (state, {'minibatchSourcePosition': position}):    # ours and CNTK's own state
        again = _source(path)
        again.restore_from_checkpoint(restored)
        assert [_read(again, size, parts, part) for _ in range(3)] == after


def test_position_restored_into_a_source_that_already_deals_out(tmp_path):
    path = _file(tmp_path, 'ones')
    source = _source(path)
    _read(source, 3, 2, 1)
    source.restore_from_checkpoint({'minibatchSourcePosition': 10})     # as after 5 minibatches of size 3
    assert [_read(source, 3, 2, 1) for _ in range(3)] == [(1, False, [3]), (1, False, [5]), (1, True, [0])]
