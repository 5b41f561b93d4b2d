"""MinibatchSource.get_next_minibatch, the native method under next_minibatch that scripts call (a third-party
evaluation script printed the bound method): its argument forms, refusals and results, golden from CNTK 2.7."""
import numpy as np
import pytest

import cntk as C


@pytest.fixture
def ctf(tmp_path):
    path = tmp_path / 'd.ctf'
    with open(path, 'w') as f:
        for s in range(5):
            for t in range(s % 3 + 1):
                f.write('%d |x %d %d%s\n' % (s, s, t, ' |y 1' if t == 0 else ''))
    return str(path)


def _source(ctf, **kw):
    return C.io.MinibatchSource(C.io.CTFDeserializer(ctf, C.io.StreamDefs(
        x=C.io.StreamDef('x', 2), y=C.io.StreamDef('y', 1))), randomize=False, **kw)


def _summary(r):
    return sorted((k.m_name, v.number_of_sequences, v.number_of_samples, v.sweep_end) for k, v in r.items())


@pytest.mark.parametrize('args, expected', [
    ((0, 4), [('x', 1, 2, False), ('y', 1, 1, False)]),
    ((0, 3, C.device.cpu()), [('x', 1, 2, False), ('y', 1, 1, False)]),
    ((0, 5, 2, 1, C.device.cpu()), [('x', 1, 2, False), ('y', 1, 1, False)]),
    ((0, 5, 1, 0), [('x', 2, 5, False), ('y', 2, 2, False)]),
    ((False, 4, True, False), [('x', 1, 2, False), ('y', 1, 1, False)]),   # bools are ints to SWIG's size_t
])
def test_get_next_minibatch_forms(ctf, args, expected):
    m = _source(ctf)
    m.next_minibatch(1)
    assert _summary(m.get_next_minibatch(*args)) == expected


def test_get_next_minibatch_values_and_end(ctf):
    r = _source(ctf).get_next_minibatch(0, 3)
    x = [k for k in r if k.m_name == 'x'][0]
    assert r[x].asarray().tolist() == [[[0.0, 0.0], [0.0, 0.0]], [[1.0, 0.0], [1.0, 1.0]]]  # padded
    m = _source(ctf, max_samples=3)
    assert len(m.get_next_minibatch(0, 4)) == 2
    assert m.get_next_minibatch(0, 4) == {}


@pytest.mark.parametrize('args, error', [
    ((2, 0), RuntimeError), ((2, 3), RuntimeError), ((0, 0), ValueError),
    ((0, -1), NotImplementedError), ((0, 4.0), NotImplementedError),
    ((np.int64(0), 2), NotImplementedError), ((0, 2, 2, np.int64(1)), NotImplementedError),
    ((0, 2, 1), NotImplementedError), ((0, 2, 1, 0, 1), NotImplementedError), ((0, 2, None, 0), NotImplementedError),
    ((0, 2, None), ValueError), ((0, 2, 1, 0, None), ValueError),
])
def test_get_next_minibatch_refusals(ctf, args, error):
    with pytest.raises(error) as e:
        _source(ctf).get_next_minibatch(*args)
    assert type(e.value) is error
