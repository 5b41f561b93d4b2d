"""The compiled CTF tokenizer gives exactly what the numpy parser gives, and leaves anything irregular to it."""
import warnings

import numpy as np
import pytest

from cntk_compat.io import _ctf_parse
from cntk_compat.io._ctf_parse import CTFParser, CTFFormatError

native = _ctf_parse._ctf_native
pytestmark = pytest.mark.skipif(native is None, reason='the C tokenizer was not built (no C compiler at install)')

STREAMS = [('feat', 'f', 3, False), ('idx', 'ix', 7, True), ('lab', 'l', 1, False)]


def generated_ctf(rng, lines=400):
    """Sequences over several lines, ids on some (a line without one continues the sequence before it), fields
    missing on some lines, mixed blanks and CRLF."""
    out, seq = [], 0
    while len(out) < lines:
        seq += 1
        length = int(rng.integers(1, 5))
        with_id = rng.random() < 0.8
        for step in range(length):
            fields = ['|f ' + ' '.join(repr(float(v)) for v in rng.normal(size=3) * 10.0 ** rng.integers(-3, 4, 3))]
            if step == 0 or rng.random() < 0.7:     # every sequence has each input at least once
                pairs = rng.choice(7, size=int(rng.integers(0, 4)), replace=False)
                fields.append('|ix ' + ' '.join('%d:%g' % (i, rng.normal()) for i in pairs))
            if step == 0:
                fields.append('|l %d' % rng.integers(0, 9))
            if rng.random() < 0.1:
                fields.append(str(rng.choice(['|# a comment', '|#', '|other 1 2'])))
            rng.shuffle(fields)
            head = ('%d' % (seq * 7919)) + ('\t' if rng.random() < 0.5 else '  ') if with_id else ''
            end = '\r\n' if rng.random() < 0.1 else '\n'
            out.append(head + (' ' if rng.random() < 0.5 else '\t').join(fields) + end)
            if not with_id:
                break
    return ''.join(out).encode()


def native_block(text, streams=STREAMS, dtype=np.float32):
    return native.parse_block(text, tuple(s[1].encode() for s in streams), tuple(s[2] for s in streams),
                              tuple(s[3] for s in streams), np.dtype(dtype).itemsize)


def both_paths(data, streams=STREAMS, dtype=np.float32):
    parser = CTFParser('gen.ctf', streams, dtype)
    fast, lines = parser.parse_chunk(data, 10)
    assert lines == data.count(b'\n')
    general = parser._assemble(parser._parse_general(data, 10)[0])
    return fast, general


def assert_same_chunk(a, b):
    np.testing.assert_array_equal(a.keys, b.keys)
    assert a.streams.keys() == b.streams.keys()
    for name in a.streams:
        x, y = a.streams[name], b.streams[name]
        np.testing.assert_array_equal(x.offsets, y.offsets)
        if x.is_sparse:
            assert y.is_sparse
            np.testing.assert_array_equal(x.rows.toarray(), y.rows.toarray())
        else:
            np.testing.assert_array_equal(x.rows, y.rows)


@pytest.mark.parametrize('seed', [0, 1, 2])
def test_native_equals_numpy_parser_on_generated_files(seed):
    data = generated_ctf(np.random.default_rng(seed))
    assert native_block(data) is not None          # the generated text is valid: the tokenizer takes it
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')            # the 'other' input
        assert_same_chunk(*both_paths(data))


def test_chunks_of_many_blocks_keep_line_numbers_and_sequences(monkeypatch):
    monkeypatch.setattr(_ctf_parse, '_native_block_bytes', lambda size, threads: 1000)
    data = generated_ctf(np.random.default_rng(7), lines=2000)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        assert_same_chunk(*both_paths(data))


def test_values_equal_pythons_float_in_double_precision():
    rng = np.random.default_rng(3)
    x = rng.normal(size=3000) * 10.0 ** rng.integers(-30, 30, 3000)
    texts = [repr(float(v)) for v in x] + ['%.6g' % v for v in x] + ['%.3e' % v for v in x] + ['%.25f' % v for v in x[:200]]
    texts += ['0', '-0', '+7', '1.', '0.5', '1e308', '1e-320', '4.9e-324', '2e400', '123456789012345678901234567890']
    line = ('|f ' + ' '.join(texts) + '\n').encode()
    parsed = native_block(line, [('f', 'f', len(texts), False)], np.float64)
    values = np.frombuffer(parsed[4][0][0], np.float64)
    np.testing.assert_array_equal(values, np.array([float(t) for t in texts]))
    assert np.signbit(values[texts.index('-0')])


def test_unknown_inputs_warn_once_with_their_first_line():
    text = b'|f 1 2 3 |l 1\n|f 1 2 3 |zz 4 |l 2\n|zz 5 |f 1 2 3 |l 3 |yy\n'
    with pytest.warns(UserWarning) as record:
        chunk, _ = CTFParser('gen.ctf', [STREAMS[0], STREAMS[2]]).parse_chunk(text, 10)
    assert sorted(str(w.message) for w in record) == [
        "gen.ctf:12: input 'zz' is not one of the configured streams (f, l); its values are skipped",
        "gen.ctf:13: input 'yy' is not one of the configured streams (f, l); its values are skipped"]
    assert chunk.streams['lab'].rows.ravel().tolist() == [1, 2, 3]


def test_values_are_exact_float32():
    text = b'|f 0.1 -2.5e-3 1e30 |l 3\n|f 1.0000001 0.5 -0 |l 1\n|f 7 5.0E+2 -0.25 |l 1\n'
    streams = [STREAMS[0], STREAMS[2]]
    assert native_block(text, streams) is not None
    fast, _ = both_paths(text, streams)
    np.testing.assert_array_equal(fast.streams['feat'].rows, np.array(
        [[0.1, -2.5e-3, 1e30], [1.0000001, .5, 0], [7, 500, -.25]], np.float32))


def test_large_sequence_ids_are_exact():
    fast, _ = both_paths(b'18446744073709551615 |l 1\n18446744073709551614 |l 2\n', [STREAMS[2]])
    assert fast.keys.tolist() == [2 ** 64 - 1, 2 ** 64 - 2]


@pytest.mark.parametrize('text', [
    b'|ix 1:2:3 4\n',          # two colons in one word, a word without one
    b'|ix 1 2\n',              # values without colons
    b'|ix 1: 2\n',             # colon not joining two numbers
    b'|f 1:2 3 4\n',           # colon in a dense input
    b'|ix 3.0:2\n',            # an index that is not written as a plain integer
    b'|ix 7:1\n',              # an index beyond the dimension
    b'|f 1 2\n',               # too few values
    b'|f 1 2 3 4\n',           # too many
    b'x |f 1 2 3\n',           # an id that is not a number
    b'18446744073709551616 |f 1 2 3\n',   # an id beyond 64 bits
    b'5\n',                    # no field
    b'7 8 |f 1 2 3\n',         # two tokens before the first field
    b'|f 1.5abc 2 3\n',        # the C++ parser would read numbers' valid beginnings and drop the rest
    b'|f 1.2.3 2 3\n',
    b'|f 1e5e3 2 3\n',
    b'|f 1e5.3 2 3\n',
    b'|f 1-2 2 3\n',
    b'|f 1e 2 3\n',
    b'|f . - 3\n',
    b'|f 0x1 1,5 3\n',
    b'|f nan inf 3\n',         # spelled-out values are left to the numpy parser
    b'|f .5 2 3\n',            # CNTK 2.7 wants a digit before the point
    b'|f 1.e3 2 3\n',          # and one after it before an exponent
])
def test_irregular_blocks_go_to_the_numpy_parser(text):
    assert native_block(text) is None
    assert native_block(b'|f 1 2 3\n' * 3 + text) is None     # the whole block, not just the line


@pytest.mark.parametrize('text, message', [
    (b'|ix 1:2:3 4\n', "input 'ix' is sparse: expected 'index:value' pairs"),
    (b'|ix 9:1\n', r"sparse index 9 of input 'ix' is outside \[0, 7\)"),
    (b'|f 1 2 3 4\n', "input 'f' expects 3 values per sample, found 4"),
    (b'|f 1 2 x\n', "cannot parse 'x' as a number"),
    (b'12 13 |f 1 2 3\n', "expected an unsigned 64-bit integer sequence id"),
])
def test_malformed_input_still_raises_with_the_line(text, message):
    with pytest.raises(CTFFormatError, match='gen.ctf:11: ' + message):
        CTFParser('gen.ctf', STREAMS).parse_chunk(text, 10)


@pytest.mark.parametrize('seed', range(4))
def test_mutated_text_is_parsed_the_same_or_left_to_the_numpy_parser(seed):
    """Random edits of valid text: whatever the tokenizer accepts, the numpy parser reads the same way."""
    rng = np.random.default_rng(100 + seed)
    base = bytearray(generated_ctf(rng, lines=40))
    alphabet = b' \t\r\n|:#.eE+-0123456789x'
    for _ in range(150):
        text = bytearray(base)
        for _ in range(int(rng.integers(1, 4))):
            at = int(rng.integers(0, len(text)))
            edit = rng.integers(0, 3)
            if edit == 0:
                text[at] = alphabet[int(rng.integers(0, len(alphabet)))]
            elif edit == 1:
                text.insert(at, alphabet[int(rng.integers(0, len(alphabet)))])
            else:
                del text[at]
        text = bytes(text)
        if native_block(text) is None:
            continue
        parser = CTFParser('gen.ctf', STREAMS)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            general_blocks, lines = parser._parse_general(text, 0)     # every line is valid for it too
            outcomes = []
            for assemble in (lambda: parser.chunk_of_blocks(text, general_blocks, 0, lines),
                             lambda: parser.parse_chunk(text, 0)[0]):
                try:
                    outcomes.append(assemble())
                except CTFFormatError as error:     # sequences missing an input, lines without one: both say so
                    outcomes.append(str(error))
        if isinstance(outcomes[0], str):
            assert outcomes[0] == outcomes[1]
        else:
            assert_same_chunk(*outcomes)
