"""Distributed reading with a global minibatch size the workers cannot share evenly: the shares take turns, from a
running total that the reader's checkpoint keeps, so the workers never drift apart."""
import numpy as np
import pytest

from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs

MINIBATCH = 9       # odd: 2 and 4 workers cannot share it evenly


def _source(path):
    return MinibatchSource(CTFDeserializer(path, StreamDefs(v=StreamDef(field='v', shape=1))), randomize=False)


def _read(src, count, workers, worker):
    """The sample ids of ``count`` minibatches of this worker's share."""
    out = []
    for _ in range(count):
        mb = src.next_minibatch(MINIBATCH, num_data_partitions=workers, partition_index=worker)
        out.append([int(v) for v in mb[src['v']].asarray().reshape(-1)])
    return out


@pytest.mark.parametrize('workers', [2, 4])
def test_shares_of_an_odd_minibatch_take_turns_and_survive_a_restore(tmp_path, workers):
    path = tmp_path / 'ids.ctf'
    path.write_text(''.join('|v %d\n' % i for i in range(60)))
    reads = [_read(_source(str(path)), 30, workers, k) for k in range(workers)]
    counts = np.array([[len(mb) for mb in reads[k]] for k in range(workers)])
    assert (counts.sum(axis=0) == MINIBATCH).all()          # every minibatch is the global size
    running = counts.cumsum(axis=1)
    assert (running.max(axis=0) - running.min(axis=0) <= 1).all()       # no worker runs ahead
    assert (running[:, -1] == 30 * MINIBATCH // workers + np.arange(workers).__lt__(30 * MINIBATCH % workers)).all()
    # the workers read disjoint samples, each its own in order, sweep after sweep
    for k in range(workers):
        mine = [i for i in list(range(60)) * 5 if i % workers == k]
        assert sum(reads[k], []) == mine[:running[k, -1]]
    # a restored reader continues with the same shares (the running total is part of its state)
    for k in range(workers):
        src = _source(str(path))
        _read(src, 7, workers, k)
        state = src.get_checkpoint_state()
        restored = _source(str(path))
        restored.restore_from_checkpoint(state)
        assert _read(restored, 23, workers, k) == reads[k][7:]


def test_a_state_without_the_running_total_starts_it_at_zero_and_a_bad_one_is_refused(tmp_path):
    path = tmp_path / 'ids.ctf'
    path.write_text(''.join('|v %d\n' % i for i in range(10)))
    src = _source(str(path))
    state = src.get_checkpoint_state()
    assert state['minibatch_samples_requested'] == 0
    del state['minibatch_samples_requested']
    src.restore_from_checkpoint(state)
    assert len(_read(src, 1, 2, 1)[0]) == 4
    state['minibatch_samples_requested'] = -3
    with pytest.raises(ValueError, match='minibatch_samples_requested'):
        src.restore_from_checkpoint(state)
