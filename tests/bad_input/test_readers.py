"""Odd files given to the CTF reader: CNTK's behaviour, or an error naming the file, line and culprit."""
import numpy as np
import pytest

import cntk as C
import cntk_compat.io._ctf_parse as ctf_parse
from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs


@pytest.fixture(params=["native", "numpy"])
def parser(request, monkeypatch):
    """Each case runs with the compiled tokenizer (where built) and with the numpy parser."""
    if request.param == "numpy":
        monkeypatch.setattr(ctf_parse, "_ctf_native", None)
    elif ctf_parse._ctf_native is None:
        pytest.skip("the compiled CTF tokenizer is not built")
    return request.param


def _read(path, **shapes):
    streams = StreamDefs(**{name: StreamDef(field=name, shape=dim) for name, dim in shapes.items()})
    source = MinibatchSource(CTFDeserializer(str(path), streams), randomize=False, max_sweeps=1)
    return {k.m_name: v.asarray() for k, v in source.next_minibatch(100).items()}


def test_a_utf8_byte_order_mark_is_skipped(tmp_path, parser):
    path = tmp_path / "bom.ctf"
    path.write_bytes(b"\xef\xbb\xbf|feature 1 2 3 |label 1 0\n|feature 4 5 6 |label 0 1\n")
    data = _read(path, feature=3, label=2)
    assert data["feature"].reshape(2, 3).tolist() == [[1, 2, 3], [4, 5, 6]]


def test_a_byte_order_mark_before_a_sequence_id(tmp_path, parser):
    path = tmp_path / "bom_ids.ctf"
    path.write_bytes(b"\xef\xbb\xbf7 |a 1\n7 |a 2\n8 |a 3\n")
    data = _read(path, a=1)
    assert data["a"].reshape(2, 2).tolist() == [[1, 2], [3, 0]]  # two sequences (7 and 8), padded


def test_an_input_twice_on_one_line_names_file_line_and_input(tmp_path, parser):
    path = tmp_path / "twice.ctf"
    path.write_text("|feature 1 2 3 |label 1 0\n|feature 1 2 3 |label 1 0 |feature 4 5 6\n")
    with pytest.raises(ValueError, match=r"twice\.ctf:2: input 'feature' appears more than once on the line"):
        _read(path, feature=3, label=2)


def test_a_directory_given_as_the_file(tmp_path):
    (tmp_path / "data").mkdir()
    with pytest.raises(IsADirectoryError, match=r"'.*data' is a directory"):
        CTFDeserializer(str(tmp_path / "data"), StreamDefs(a=StreamDef(field="a", shape=1)))


def test_an_empty_file_is_named(tmp_path):
    (tmp_path / "empty.ctf").write_bytes(b"")
    with pytest.raises(ValueError, match=r"input file '.*empty\.ctf' is empty"):
        CTFDeserializer(str(tmp_path / "empty.ctf"), StreamDefs(a=StreamDef(field="a", shape=1)))


@pytest.mark.parametrize("shape, error", [(-1, NotImplementedError), (0, ValueError), (2 ** 62, ValueError),
                                          ((3, -2), NotImplementedError), (2.5, NotImplementedError)])
def test_stream_shapes_are_checked_before_anything_is_allocated(tmp_path, shape, error):
    # the types CNTK 2.7's SWIG layer raises (a dimension that is not a non-negative Python int is its overload
    # NotImplementedError), the stream and its shape named
    (tmp_path / "one.ctf").write_text("|feature 3\n")
    with pytest.raises(error, match=r"CTFDeserializer: stream 'feature' has shape"):
        CTFDeserializer(str(tmp_path / "one.ctf"), StreamDefs(feature=StreamDef(field="feature", shape=shape)))


def test_the_tokenizer_itself_refuses_impossible_dimensions():
    if ctf_parse._ctf_native is None:
        pytest.skip("the compiled CTF tokenizer is not built")
    for dim in (-1, 0, 2 ** 62):
        with pytest.raises(ValueError, match=r"stream 'a' has dimension %d" % dim):
            ctf_parse._ctf_native.parse_block(b"|a 1\n", (b"a",), (dim,), (False,), 4)


def test_a_one_line_file(tmp_path, parser):
    (tmp_path / "one.ctf").write_text("|feature 3")
    assert _read(tmp_path / "one.ctf", feature=1)["feature"].ravel().tolist() == [3.0]


@pytest.mark.parametrize("text, culprit", [("|a 1_0 2\n", "1_0"), ("|a 1\x002\n", r"NUL"), ("|a 1 2\n|a 3 0x1\n", "0x1")])
def test_numbers_cntk_refuses(tmp_path, parser, text, culprit):
    path = tmp_path / "bad.ctf"
    path.write_bytes(text.encode())
    with pytest.raises(ValueError, match=r"bad\.ctf:\d+: .*%s" % culprit):
        _read(path, a=2)
