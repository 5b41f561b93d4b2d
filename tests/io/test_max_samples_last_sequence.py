"""max_samples: a minibatch goes on taking sequences while the samples read before them are fewer than
max_samples, so its last sequence may cross the limit (CNTK 2.7; counts recorded from CNTK 2.7)."""
import pytest

from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs

LENGTHS = [3, 5, 2, 4, 6, 1, 3, 4]


@pytest.mark.parametrize('size,max_samples,parts,part,expected', [
    (10, 12, 1, 0, ['10/3', '4/1', '-']),
    (10, 15, 1, 0, ['10/3', '10/2', '-']),      # the sequence starting at sample 14 comes in whole (to 20)
    (7, 20, 1, 0, ['3/1', '7/2', '4/1', '6/1', '-']),
    (10, 15, 2, 0, ['5/2', '6/1', '-']),
    (10, 15, 2, 1, ['5/1', '4/1', '-']),
])
def test_the_last_sequence_may_cross_max_samples(tmp_path, size, max_samples, parts, part, expected):
    path = tmp_path / 'ms.ctf'
    path.write_text(''.join('%d |x %d\n' % (s, 100 * s + t) for s, n in enumerate(LENGTHS) for t in range(n)))
    src = MinibatchSource(CTFDeserializer(str(path), StreamDefs(x=StreamDef(field='x', shape=1))),
                          randomize=False, max_samples=max_samples)
    got = []
    for _ in expected:
        m = src.next_minibatch(size, num_data_partitions=parts, partition_index=part)
        got.append('%d/%d' % (m[src.streams.x].num_samples, m[src.streams.x].num_sequences) if m else '-')
    assert got == expected
