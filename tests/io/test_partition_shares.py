"""Distributed reading splits each minibatch into fixed per-worker shares, as CNTK 2.7 does: size // workers,
one more for the first size % workers workers, at least one sample (counts read by CNTK 2.7 itself)."""
import pytest

from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs


def _source(path):
    return MinibatchSource(CTFDeserializer(path, StreamDefs(v=StreamDef(field='v', shape=1))), randomize=False)


def _read(src, size, count, workers, worker):
    """The sample ids of ``count`` minibatches of this worker's share."""
    out = []
    for _ in range(count):
        mb = src.next_minibatch(size, num_data_partitions=workers, partition_index=worker)
        out.append([int(v) for v in mb[src['v']].asarray().reshape(-1)])
    return out


@pytest.mark.parametrize('size, workers, shares', [
    (9, 2, [5, 4]), (8, 3, [3, 3, 2]), (9, 4, [3, 2, 2, 2]), (7, 4, [2, 2, 2, 1]), (2, 4, [1, 1, 1, 1])])
def test_each_worker_reads_its_fixed_share(tmp_path, size, workers, shares):
    path = tmp_path / 'ids.ctf'
    path.write_text(''.join('|v %d\n' % i for i in range(60)))
    for k in range(workers):
        reads = _read(_source(str(path)), size, 6, workers, k)
        assert [len(mb) for mb in reads] == [shares[k]] * 6
        # each worker reads its own samples (every workers-th, one sample a sequence here) in order, sweep after sweep
        assert sum(reads, []) == [i for i in list(range(60)) * 2 if i % workers == k][:6 * shares[k]]


def test_too_small_a_minibatch_is_adjusted_with_cntks_warning(tmp_path, capsys):
    path = tmp_path / 'ids.ctf'
    path.write_text(''.join('|v %d\n' % i for i in range(10)))
    src = _source(str(path))
    assert [len(mb) for mb in _read(src, 2, 3, 4, 3)] == [1, 1, 1]
    assert capsys.readouterr().err == ("WARNING: The minibatch size '2' is too small to be used with 4 workers, "
                                       "adjusting to minibatch size of 1 sample per worker\n")


def test_a_restored_reader_continues_with_the_same_share(tmp_path):
    path = tmp_path / 'ids.ctf'
    path.write_text(''.join('|v %d\n' % i for i in range(60)))
    reads = _read(_source(str(path)), 9, 10, 2, 1)
    src = _source(str(path))
    _read(src, 9, 4, 2, 1)
    state = src.get_checkpoint_state()
    restored = _source(str(path))
    restored.restore_from_checkpoint(state)
    assert _read(restored, 9, 6, 2, 1) == reads[4:]
