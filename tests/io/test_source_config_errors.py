"""MinibatchSource configurations CNTK 2.7 refuses: its RuntimeError and message (checked with CNTK 2.7)."""
import pytest

from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs


@pytest.fixture
def ctf(tmp_path):
    path = tmp_path / 'd.ctf'
    path.write_text('0 |x 1\n1 |x 2\n')
    return CTFDeserializer(str(path), StreamDefs(x=StreamDef(field='x', shape=1)))


@pytest.mark.parametrize('kw,message', [
    (dict(randomization_window_in_samples=8),
     'MinibatchSourceConfig: randomization window in chunks and randomization window in samples are mutually '
     'exclusive options and cannot have non-zero values at the same time.'),
    (dict(max_samples=10, max_sweeps=2),
     'MinibatchSourceConfig: max samples and max sweeps are mutually exclusive options and cannot have '
     'non-default values at the same time.'),
    (dict(frame_mode=True, truncation_length=5),
     'MinibatchSourceConfig: truncation and frame mode are mutually exclusive options.'),
])
def test_refused_configuration(ctf, kw, message):
    with pytest.raises(RuntimeError) as info:
        MinibatchSource(ctf, **kw)
    assert str(info.value).splitlines()[0] == message
