"""The numpy number parser (the CTF fallback without the compiled tokenizer) rounds as Python's float does."""
import numpy as np

from cntk_compat.io._numparse import parse_numbers, token_bounds


def _parse(tokens):
    text = (" ".join(tokens) + "\n").encode()
    b = np.frombuffer(text, np.uint8)
    starts, ends = token_bounds(b <= 32)
    return parse_numbers(b, starts, ends)


def test_values_are_the_correctly_rounded_doubles():
    rng = np.random.RandomState(0)
    tokens = ["0.1", "0.30000000000000004", "2.2250738585072014e-308", "1.7976931348623157e308", "9007199254740993",
              "123456789012345678901234567890", "1e-320", "-0", "-0.0", "+7", "5.", "1E22", "1e23",
              "0.000001234", "-12.5e-3", "3"]
    magnitudes = rng.randn(3000) * 10.0 ** rng.randint(-30, 30, 3000)
    tokens += ["%.*g" % (int(d), v) for d, v in zip(rng.randint(1, 18, 3000), magnitudes)]
    tokens += ["%de%d" % (m, e) for m, e in zip(rng.randint(0, 10 ** 9, 500), rng.randint(-40, 40, 500))]
    values, bad = _parse(tokens)
    assert len(bad) == 0
    expected = np.array([float(t) for t in tokens])
    same = (values == expected) | (np.isnan(values) & np.isnan(expected))
    assert same.all(), [(t, v, e) for t, v, e, s in zip(tokens, values, expected, same) if not s][:5]
    assert np.signbit(values[tokens.index("-0")]) and np.signbit(values[tokens.index("-0.0")])


def test_a_single_token_and_garbage():
    values, bad = _parse(["3"])
    assert values.tolist() == [3.0] and len(bad) == 0
    values, bad = _parse(["1", "x1", "1..2", "e5", "1e", "--1"])
    assert values[0] == 1.0 and bad.tolist() == [1, 2, 3, 4, 5]


def test_cntk_number_syntax():
    # CNTK 2.7 reads '5.', '+7', '00.1', '1E+2' and refuses these (its RuntimeError on the file)
    refused = [".5", "-.5", "+.5", ".5e-1", "1.e3", "1.5.", ".", "-", "1.0e", "NaN", "nan", "inf", "-inf", "1d2", "1_0"]
    values, bad = _parse(["5.", "+7", "00.1", "1E+2"] + refused)
    assert values[:4].tolist() == [5.0, 7.0, 0.1, 100.0]
    assert bad.tolist() == list(range(4, 4 + len(refused)))
