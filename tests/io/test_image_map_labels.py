"""Map files of ImageDeserializer and Base64ImageDeserializer read as CNTK 2.7 reads them: labels parsed like C's
strtoull, and CNTK's RuntimeErrors (texts and 0-based line numbers) for bad columns and labels."""
import base64

import numpy as np
import pytest
from PIL import Image

import cntk as C
from cntk.io import Base64ImageDeserializer, ImageDeserializer, MinibatchSource, StreamDef, StreamDefs
from cntk.io import transforms as xforms


def _source(kind, path, with_labels=True):
    streams = dict(features=StreamDef(field='image', transforms=[xforms.scale(width=4, height=4, channels=3)]))
    if with_labels:
        streams['labels'] = StreamDef(field='label', shape=2)
    return MinibatchSource(kind(str(path), StreamDefs(**streams)), randomize=False)


@pytest.fixture
def png(tmp_path):
    path = tmp_path / 'a.png'
    Image.fromarray((np.arange(192) % 251).astype(np.uint8).reshape(8, 8, 3)).save(str(path))
    return path


def _labels(kind, path):
    s = _source(kind, path)
    return s.next_minibatch(2)[s.streams.labels].data.asarray().reshape(2, 2).tolist()


@pytest.mark.parametrize('label', ['1.5', ' 1', '+1', '1 0'])
def test_labels_read_like_strtoull(tmp_path, png, label):
    m = tmp_path / 'map.txt'
    m.write_text('%s\t0\n%s\t%s\n' % (png, png, label))
    assert _labels(ImageDeserializer, m) == [[1.0, 0.0], [0.0, 1.0]]


def test_image_map_errors(tmp_path, png):
    cases = [('-1', "Image '%s' has invalid class id '18446744073709551615'. It is exceeding the label dimension "
                    "of '2'. Line 1 in file %s."),
             ('2', "Image '%s' has invalid class id '2'. It is exceeding the label dimension of '2'. Line 1 in "
                   "file %s."),
             ('x', "Cannot parse label value on line 1, second column, in file %s."),
             ('', "Invalid map file format, must contain 2 or 3 tab-delimited columns, line 1 in file %s.")]
    for i, (label, text) in enumerate(cases):
        m = tmp_path / ('map%d.txt' % i)
        m.write_text('%s\t0\n%s\t%s\n' % (png, png, label) if label else '%s\t0\n%s\n' % (png, png))
        expected = text % ((png, m) if text.startswith('Image') else (m,))
        with pytest.raises(RuntimeError) as e:
            _source(ImageDeserializer, m)
        assert str(e.value).splitlines()[0] == expected
    m = tmp_path / 'blank.txt'
    m.write_text('%s\t0\n\n%s\t1\n' % (png, png))
    with pytest.raises(RuntimeError, match="must contain 2 or 3 tab-delimited columns, line 1 in file"):
        _source(ImageDeserializer, m)
    m = tmp_path / 'nolabels.txt'
    m.write_text('%s\t0\n%s\tx\n' % (png, png))
    with pytest.raises(RuntimeError, match="Cannot parse label value on line 1"):
        _source(ImageDeserializer, m, with_labels=False)


def test_base64_map_errors(tmp_path, png):
    b64 = base64.b64encode(png.read_bytes()).decode()
    cases = [('1\t2\t%s' % b64, "Image with id '1' has invalid class id '2'. It is exceeding the label dimension "
                                "of '2'"),
             ('1\tx\t%s' % b64, "Cannot parse label value for sequence '1' in the input file '%s'"),
             ('1\t\t%s' % b64, "Cannot parse label value for sequence '1' in the input file '%s'"),
             ('1\t%s' % b64, "Cannot parse label value for sequence '1' in the input file '%s'"),
             ('1', "Empty label value for sequence '1' in the input file '%s'")]
    for i, (line, text) in enumerate(cases):
        m = tmp_path / ('b%d.txt' % i)
        m.write_text('0\t0\t%s\n%s\n' % (b64, line))
        with pytest.raises(RuntimeError) as e:
            _source(Base64ImageDeserializer, m)
        assert str(e.value).splitlines()[0] == (text % m if '%s' in text else text)
    m = tmp_path / 'ok.txt'
    m.write_text('0\t0\t%s\n1\t1.5\t%s\n' % (b64, b64))
    assert _labels(Base64ImageDeserializer, m) == [[1.0, 0.0], [0.0, 1.0]]


def test_base64_map_without_sequence_ids(tmp_path, png):
    # CNTK 2.7 reads the first line to tell: with two columns, every line is <label> <tab> <image> and its number is
    # its sequence id (CNTK's own test_base64_is_equal_image writes such a file)
    b64 = base64.b64encode(png.read_bytes()).decode()
    m = tmp_path / 'unkeyed.txt'
    m.write_text('1\t%s\n0\t%s\n' % (b64, b64))
    assert _labels(Base64ImageDeserializer, m) == [[0.0, 1.0], [1.0, 0.0]]
    cases = [('0\t%s\n5\n' % b64, "No data found for sequence '1' in the input file '%s'"),
             ('0\t%s\nx\t%s\n' % (b64, b64), "Cannot parse label value for sequence '1' in the input file '%s'"),
             ('0\t%s\n\n' % b64, "Cannot parse label value for sequence '1' in the input file '%s'"),
             ('0\t0\t%s\n7\t1\n' % b64, "No data found for sequence '7' in the input file '%s'")]
    for i, (text, message) in enumerate(cases):
        m = tmp_path / ('u%d.txt' % i)
        m.write_text(text)
        with pytest.raises(RuntimeError) as e:
            _source(Base64ImageDeserializer, m).next_minibatch(2)
        assert str(e.value).splitlines()[0] == message % m
