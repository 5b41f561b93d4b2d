"""CTF lines as CNTK 2.7 reads them: rows of sequences, ids, blank lines, number syntax (golden outcomes read by
CNTK 2.7 itself: the sequences it delivered, or that it raised a RuntimeError)."""
import numpy as np
import pytest

from cntk_compat.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs


def read(tmp_path, text, streams=('a',)):
    path = tmp_path / 'd.ctf'
    path.write_text(text)
    dims = {'a': 2, 'b': 1}
    src = MinibatchSource(CTFDeserializer(str(path), StreamDefs(**{s: StreamDef(s, dims[s]) for s in streams})),
                          randomize=False, max_sweeps=1)
    mb = src.next_minibatch(100)
    return [[[x.tolist() for x in seq] for seq in mb[src.streams[s]].as_sequences()] for s in streams]


@pytest.mark.parametrize('text, sequences', [
    # blank lines may open the file
    ('\n0 |a 1 2\n1 |a 5 6\n', [[[1, 2]], [[5, 6]]]),
    ('  \n0 |a 1 2\n1 |a 5 6\n', [[[1, 2]], [[5, 6]]]),
    ('\n|a 1 2\n|a 5 6\n', [[[1, 2]], [[5, 6]]]),
    ('0 |a 1 2\n1 |a 5 6', [[[1, 2]], [[5, 6]]]),                       # no newline at the end
    # after a line with an id, a line without one continues its sequence
    ('0 |a 1 2\n|a 3 4\n|a 5 6\n1 |a 7 8\n|a 9 9\n', [[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 9]]]),
    ('0 |a 1 2\n|a 3 4\n0 |a 5 6\n', [[[1, 2], [3, 4], [5, 6]]]),
    ('0 |a 1 2\n|a 3 4\n1 |a 5 6\n', [[[1, 2], [3, 4]], [[5, 6]]]),
    # a file whose first line has no id: every line is a sequence, ids or not
    ('|a 1 2\n0 |a 3 4\n0 |a 5 6\n', [[[1, 2]], [[3, 4]], [[5, 6]]]),
    ('|a 1 2\n|a 3 4\n0 |a 5 6\n', [[[1, 2]], [[3, 4]], [[5, 6]]]),
    ('5 |a 1 2\n3 |a 3 4\n3 |a 5 6\n', [[[1, 2]], [[3, 4], [5, 6]]]),
    ('0 |a 1 2 |# c c c\n1 |# c |a 5 6\n', [[[1, 2]], [[5, 6]]]),
    ('0 |a 5. -5.\n1 |a +7 00.1\n2 |a 1E+2 -2.5E-1\n', [[[5, -5]], [[7, 0.1]], [[100, -0.25]]]),
])
def test_sequences(tmp_path, text, sequences):
    got, = read(tmp_path, text)
    assert len(got) == len(sequences)
    for g, s in zip(got, sequences):
        np.testing.assert_allclose(g, s, rtol=1e-6)


def test_some_input_on_every_row(tmp_path):
    a, b = read(tmp_path, '0 |a 1 2 |b 1\n0 |a 3 4\n1 |a 5 6 |b 4\n', ('a', 'b'))
    assert a == [[[1, 2], [3, 4]], [[5, 6]]] and b == [[[1]], [[4]]]
    with pytest.raises(RuntimeError, match=r"d.ctf:1: sequence 0 has 2 rows"):
        read(tmp_path, '0 |a 1 2\n0 |b 3\n1 |a 5 6 |b 4\n', ('a', 'b'))
    with pytest.raises(RuntimeError, match=r"d.ctf:3: sequence 2 has 3 rows"):
        read(tmp_path, '0 |a 1 2 |b 5\n1 |a 7 8 |b 6\n2 |a 9 10 |b 7\n2 |a 11 12\n2 |b 8\n', ('a', 'b'))
    with pytest.raises(RuntimeError, match=r"sequence 0 has 2 rows"):      # a row of an unknown input only
        read(tmp_path, '0 |a 1 2\n0 |zz 3\n2 |a 5 6\n')


@pytest.mark.parametrize('text', [
    '0 |a 1 2\n\n1 |a 5 6\n', '0 |a 1 2\n1 |a 5 6\n\n', '|a 1 2\n\n|a 5 6\n', '0 |a 1 2\n   \n1 |a 5 6\n',
    '0 |a 1 2\n|# just a comment\n1 |a 5 6\n', '0 |a 1 2\n1 |# c\n2 |a 5 6\n', '|# c\n0 |a 1 2\n1 |a 5 6\n',
    '0 |a 1 2\n1 |a 5 6\n   ', '|# x\n',
])
def test_lines_without_an_input_are_refused(tmp_path, text):
    with pytest.raises(RuntimeError, match=r"d.ctf:\d+: a line without any input"):
        read(tmp_path, text)


@pytest.mark.parametrize('text', ['\n\n', '   '])
def test_blank_files_are_empty(tmp_path, text):
    with pytest.raises(RuntimeError, match=r"d.ctf: input file is empty"):
        read(tmp_path, text)


@pytest.mark.parametrize('text', ['0 |a 1 2 |\n1 |a 5 6\n', '0 |a 1 2 | |a 3\n', '0 |a 1 2 ||a 3\n'])
def test_a_bar_without_an_input_name(tmp_path, text):
    with pytest.raises(RuntimeError, match=r"d.ctf:1: '\|' is not followed by an input name"):
        read(tmp_path, text)


@pytest.mark.parametrize('token', ['.5', '-.5', '+.5', '.5e-1', '1.e3', '1.5.', '.', '-', '1.0e', 'NaN', 'nan',
                                   'inf', '-Infinity', '1d2', '0x1'])
def test_numbers_cntk_refuses(tmp_path, token):
    with pytest.raises(RuntimeError, match="cannot parse"):
        read(tmp_path, '0 |a %s 2\n1 |a 5 6\n' % token)
