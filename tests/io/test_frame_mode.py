"""frame_mode over CTF: CNTK 2.7's frame packer delivers single-sample sequences and refuses a minibatch holding a
longer one (golden values recorded from CNTK 2.7)."""
import numpy as np
import pytest

from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs



def source(tmp_path, text, randomize, **streams):
    path = tmp_path / 'frames.ctf'
    path.write_text(text)
    defs = StreamDefs(**{name: StreamDef(field=name, shape=1) for name in streams.get('order', 'x')})
    return MinibatchSource(CTFDeserializer(str(path), defs), randomize=randomize, frame_mode=True, max_sweeps=1)


def frames_around_a_sequence():
    """250 one-sample sequences (values 0 .. 249), one of 7 samples, 50 more one-sample sequences (251 .. 300)."""
    lines = ['%d |x %d\n' % (k, k) for k in range(250)]
    lines += ['250 |x %d\n' % (1000 + t) for t in range(7)]
    lines += ['%d |x %d\n' % (k, k) for k in range(251, 301)]
    return ''.join(lines)


def read(src, sizes):
    got = []
    for size in sizes:
        try:
            mb = src.next_minibatch(size)
        except RuntimeError as e:
            assert str(e) == 'Detected a non-frame sequence of size 7 in frame mode.'
            got.append('refused')
            continue
        if not mb:
            got.append('empty')
            break
        d = mb[src['x']]
        got.append((d.num_samples, d.end_of_sweep, d.shape, float(np.asarray(d.asarray()).sum())))
    return got


@pytest.mark.parametrize('randomize,expected', [
    # a refused minibatch is read past; another size reads again from the last minibatch delivered
    (False, [(100, False, (100, 1, 1), 4950.0), (100, False, (100, 1, 1), 14950.0), 'refused',
             (10, False, (10, 1, 1), 2045.0), (10, False, (10, 1, 1), 2145.0), 'refused', 'empty']),
    (True, [(100, False, (100, 1, 1), 13437.0), 'refused', 'refused', (10, False, (10, 1, 1), 1149.0),
            (10, False, (10, 1, 1), 1762.0), 'refused', (87, True, (87, 1, 1), 13929.0)]),
])
def test_a_longer_sequence_is_refused_where_cntk_meets_it(tmp_path, randomize, expected):
    src = source(tmp_path, frames_around_a_sequence(), randomize)
    assert read(src, [100, 100, 60, 10, 10, 100, 100]) == expected


def test_the_refusal_names_the_first_longer_sequence_of_any_stream(tmp_path):
    text = '0 |x 1 |y 1\n1 |x 2 |y 5\n1 |x 3\n1 |x 4\n2 |x 5 |y 2\n'
    for order in ('xy', 'yx'):
        src = source(tmp_path, text, False, order=order)
        assert np.asarray(src.next_minibatch(1)[src['x']].asarray()).ravel().tolist() == [1.0]
        with pytest.raises(RuntimeError, match='^Detected a non-frame sequence of size 3 in frame mode\\.$'):
            src.next_minibatch(1)
        mb = src.next_minibatch(1)
        assert [np.asarray(mb[src[k]].asarray()).ravel().tolist() for k in 'xy'] == [[5.0], [2.0]]
        assert not src.next_minibatch(1)
