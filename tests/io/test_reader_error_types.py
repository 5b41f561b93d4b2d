"""The errors of CNTK 2.7's readers are RuntimeErrors (its native reader's): malformed CTF text, an empty file, a
directory given as the file, a stream name the source does not have, and reading from a source limited to 0
samples or sweeps ("Epoch size cannot be 0.", on every call). cntk-compat's are RuntimeErrors too (and still the
ValueError or IOError they were)."""
import numpy as np
import pytest

import cntk as C


def _source(path, shape=2, is_sparse=False, **kw):
    return C.io.MinibatchSource(C.io.CTFDeserializer(str(path), C.io.StreamDefs(
        x=C.io.StreamDef(field='x', shape=shape, is_sparse=is_sparse))), randomize=False, **kw)


@pytest.mark.parametrize('text, kw', [
    ('0 |x 1 2\n# not a comment\n', {}),          # CNTK 2.7: "Reached the maximum number of allowed errors ..."
    ('0 |x 1 2\n1 |x 1 oops\n', {}),
    ('0 |x 1 2 3\n', {}),                          # more values than the dimension
    ('0 |x 1 2 |x 3 4\n', {}),
    ('0 |x 1:1 5:2\n', dict(shape=4, is_sparse=True)),
    ('0 |x 1:1 2\n', dict(shape=4, is_sparse=True)),
    ('0 |y 1 2\n', {}),                            # no sample of the configured input
])
def test_malformed_ctf_is_a_runtime_error(tmp_path, text, kw):
    path = tmp_path / 'd.ctf'
    path.write_text(text)
    source = _source(path, **kw)
    with pytest.raises(RuntimeError, match='d.ctf'):
        source.next_minibatch(2)


def test_empty_file_and_directory_are_runtime_errors(tmp_path):
    (tmp_path / 'empty.ctf').write_text('')
    with pytest.raises(RuntimeError, match='empty'):
        _source(tmp_path / 'empty.ctf')
    (tmp_path / 'dir.ctf').mkdir()
    with pytest.raises(RuntimeError, match='is a directory'):
        _source(tmp_path / 'dir.ctf')
    with pytest.raises(IsADirectoryError):
        _source(tmp_path / 'dir.ctf')


def test_unknown_stream_name_is_a_runtime_error(tmp_path):
    (tmp_path / 'd.ctf').write_text('0 |x 1 2\n')
    source = _source(tmp_path / 'd.ctf')
    with pytest.raises(RuntimeError, match="^No stream found matching given name 'features'"):
        source.stream_info('features')
    with pytest.raises(RuntimeError, match="^No stream found matching given name 'nope'"):
        source['nope']


@pytest.mark.parametrize('limit', [dict(max_samples=0), dict(max_sweeps=0)])
def test_zero_samples_or_sweeps_fail_on_every_read(tmp_path, limit):
    (tmp_path / 'd.ctf').write_text('0 |x 1 2\n')
    source = _source(tmp_path / 'd.ctf', **limit)    # created, as in CNTK 2.7
    for _ in range(2):
        with pytest.raises(RuntimeError, match=r'^Epoch size cannot be 0\.$'):
            source.next_minibatch(2)


def test_request_errors_carry_cntks_messages(tmp_path):
    (tmp_path / 'd.ctf').write_text('0 |x 1 2\n')
    with pytest.raises(ValueError, match=r'^GetNextMinibatch: Requested minibatch size must be > 0'):
        _source(tmp_path / 'd.ctf').next_minibatch(0)
    with pytest.raises(ValueError, match=r'^Could not find deserializers in the reader config\.'):
        C.io.MinibatchSource([])


def test_user_source_unknown_stream_name_is_a_runtime_error():
    class Source(C.io.UserMinibatchSource):
        def __init__(self):
            self.si = C.io.StreamInformation('features', 0, 'dense', np.float32, (2,))
            super(Source, self).__init__()

        def stream_infos(self):
            return [self.si]

        def next_minibatch(self, num_samples, number_of_workers, worker_rank, device=None):
            return {}

    source = Source()
    assert source.stream_info('features') is source.si
    with pytest.raises(RuntimeError, match=r"^No stream found matching given name 'nope'\.$"):
        source.stream_info('nope')
