"""Randomized reading delivers sequences in CNTK 2.7's order (golden orders read by CNTK 2.7 itself).

Covers one chunk and several (``chunkSizeInBytes``), windows in chunks and in samples, seeds, sweeps,
sequences of several samples, max_samples, and two workers (chunk decimation)."""
import json
import os

import numpy as np
import pytest

from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs
from cntk_compat.io._randomizer import SweepOrder, shuffle_chunks

with open(os.path.join(os.path.dirname(__file__), 'cntk27_randomization_orders.json')) as f:
    CASES = json.load(f)['cases']


def write_files(folder):
    with open(os.path.join(folder, 'g_lines.ctf'), 'w') as f:
        f.writelines('|x %d\n' % i for i in range(200))
    with open(os.path.join(folder, 'g_seqs.ctf'), 'w') as f:
        f.writelines('%d |x %d\n' % (i, i * 10 + k) for i in range(60) for k in range(1 + (i * 7) % 5))


def read(folder, config):
    config = dict(config)
    d = CTFDeserializer(os.path.join(folder, config.pop('path')), StreamDefs(x=StreamDef(field='x', shape=1)))
    if 'chunk' in config:
        d['chunkSizeInBytes'] = config.pop('chunk')
    mb_size, parts, part = config.pop('mb'), config.pop('parts', 1), config.pop('part', 0)
    config.pop('seq', None)
    src = MinibatchSource(d, **config)
    result = []
    while True:
        mb = src.next_minibatch(mb_size, num_data_partitions=parts, partition_index=part)
        if not mb:
            return result
        result.append([int(s[0, 0]) for s in mb[src.streams.x].as_sequences()])


@pytest.mark.parametrize('case', CASES, ids=[json.dumps(c['config'], sort_keys=True) for c in CASES])
def test_order_is_cntks(tmp_path, case):
    write_files(str(tmp_path))
    assert read(str(tmp_path), case['config']) == case['minibatches']


def test_chunk_shuffle_and_plain_swap_for_one_window():
    # one window over everything: position t swaps with draw % N; the chunk order is a separate engine's
    order = SweepOrder([20], [20], 0, 128, False)
    assert order.source.tolist() == [0] * 20
    assert order.index.tolist()[:6] == [0, 7, 12, 6, 19, 8]
    assert shuffle_chunks(4, 0).tolist() == [2, 0, 1, 3]


def test_windows_constrain_where_sequences_go():
    order = SweepOrder([5] * 12, [5] * 12, 3, 3, False)
    position_chunk = np.repeat(np.arange(12), 5)
    assert (order.window_begin[position_chunk] <= order.source).all()
    assert (order.source < order.window_end[position_chunk]).all()
    assert sorted(zip(order.source.tolist(), order.index.tolist())) == [(c, i) for c in range(12) for i in range(5)]
