"""The fast CTF path gives exactly what the general parser gives, and steps aside for anything irregular."""
import numpy as np
import pytest

from cntk_compat.io import _ctf_fast
from cntk_compat.io._ctf_parse import CTFParser, CTFFormatError

pytestmark = pytest.mark.skipif(not _ctf_fast.AVAILABLE, reason='scipy without its C++ Matrix Market reader')

STREAMS = [('feat', 'f', 3, False), ('idx', 'ix', 7, True), ('lab', 'l', 1, False)]


def generated_ctf(rng, lines=400):
    """Sequences over several lines, ids on some, fields missing on some lines, mixed blanks and CRLF."""
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
            rng.shuffle(fields)
            head = ('%d' % (seq * 7919)) + ('\t' if rng.random() < 0.5 else '  ') if with_id else ''
            end = '\r\n' if rng.random() < 0.1 else '\n'
            out.append(head + (' ' if rng.random() < 0.5 else '\t').join(fields) + end)
            if not with_id:
                break
        if rng.random() < 0.05:
            out.append('   \n')
    return ''.join(out).encode()


def both_paths(data, streams=STREAMS):
    parser = CTFParser('gen.ctf', streams)
    fast = parser.parse_chunk(data, 10)
    general = parser._assemble(parser._parse_general(data, 10))
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
def test_fast_path_equals_general_parser_on_generated_files(seed):
    data = generated_ctf(np.random.default_rng(seed))
    block = _ctf_fast.parse_plain_block(np.frombuffer(data, np.uint8), 0,
                                        STREAMS, [np.frombuffer(s[1].encode(), np.uint8) for s in STREAMS],
                                        np.float32)
    assert block is not None                       # the generated text is plain: the fast path takes it
    assert_same_chunk(*both_paths(data))


def test_values_are_exact_float32():
    text = b'|f 0.1 -2.5e-3 1e30 |l 3\n|f 1.0000001 .5 -0 |l 1\n|f 7 5.E+2 -.25 |l 1\n'
    streams = [STREAMS[0], STREAMS[2]]
    assert _ctf_fast.parse_plain_block(np.frombuffer(text, np.uint8), 0, streams,
                                       [np.frombuffer(s[1].encode(), np.uint8) for s in streams],
                                       np.float32) is not None
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
    b'|f 1 2 3 |# note\n',     # comment
    b'|f 1 2 3 |zz 4\n',       # unknown input name
    b'7 8 |f 1 2 3\n',         # two tokens before the first field
    b'|f 1.5abc 2 3\n',        # the C++ parser would read numbers' valid beginnings and drop the rest
    b'|f 1.2.3 2 3\n',
    b'|f 1e5e3 2 3\n',
    b'|f 1e5.3 2 3\n',
    b'|f 1-2 2 3\n',
    b'|f 1e 2 3\n',
    b'|f . - 3\n',
    b'|f 0x1 1,5 3\n',
    b'|f nan inf 3\n',         # spelled-out values are left to the general parser
])
def test_irregular_blocks_go_to_the_general_parser(text):
    b = np.frombuffer(text, np.uint8)
    assert _ctf_fast.parse_plain_block(b, 0, STREAMS, [np.frombuffer(s[1].encode(), np.uint8) for s in STREAMS],
                                       np.float32) is None


@pytest.mark.parametrize('text, message', [
    (b'|ix 1:2:3 4\n', "input 'ix' is sparse: expected 'index:value' pairs"),
    (b'|ix 9:1\n', r"sparse index 9 of input 'ix' is outside \[0, 7\)"),
    (b'|f 1 2\n', "input 'f' expects 3 values per sample, found 2"),
    (b'|f 1 2 x\n', "cannot parse 'x' as a number"),
])
def test_malformed_input_still_raises_with_the_line(text, message):
    with pytest.raises(CTFFormatError, match='gen.ctf:11: ' + message):
        CTFParser('gen.ctf', STREAMS).parse_chunk(text, 10)
