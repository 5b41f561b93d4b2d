"""The samplers of cntk.random draw CNTK 2.7's numbers: golden values from CNTK 2.7 (CPU), two consecutive
evaluations of each sampler node, in float32 and float64 (the hash covers both evaluations' values as
float64; the hexes are the first values of the second evaluation)."""
import hashlib

import numpy as np
import pytest

import cntk as C

CASES = {
    ('uniform', np.float32): ('168d6bcfdb484f38a32185b6a8a8a063c06988e0db74981edd62126524a2d110',
                              ['-0x1.7839040000000p-1', '0x1.165f660000000p+0']),
    ('uniform', np.float64): ('52bbc3e7e9985b450d5d4141ac85db58cde00beff0227fea0694cb43dabc848f',
                              ['-0x1.78390361e11dcp-1', '0x1.165f65cfa06b6p+0']),
    ('normal', np.float32): ('9e82fb475a11563ad7620691330908f008ee5564d11be338aa540d54cb9428ea',
                             ['0x1.d999ee0000000p+0', '-0x1.dee01c0000000p-3']),
    ('normal', np.float64): ('51baff8904e4c675f66335091d9c9b7f6949f7442e5dbb49aac2da9658d083f3',
                             ['0x1.d999ee420e9c0p+0', '-0x1.dee01b3e6a2d8p-3']),
    ('bernoulli', np.float32): ('dad96715c4e16e164215436ad4f42abb68cb9fce7ef84c9855fe1f3d0b6ca817',
                                ['0x0.0p+0', '0x0.0p+0']),
    ('bernoulli', np.float64): ('dad96715c4e16e164215436ad4f42abb68cb9fce7ef84c9855fe1f3d0b6ca817',
                                ['0x0.0p+0', '0x0.0p+0']),
    ('gumbel', np.float32): ('e0cb52739b2b4426137cb97c074a7e06f8e551eab77964a3f18d82fc607e226c',
                             ['-0x1.076be20000000p+1', '0x1.9206ea0000000p+1']),
    ('gumbel', np.float64): ('6d6cccd84c0bece2b30c9441dee4f97692986d535b015bcbff694217217d5e4d',
                             ['-0x1.076be2931d201p+1', '0x1.9206e97e45c5cp+1']),
}


def sampler(kind, dtype):
    if kind == 'uniform':
        return C.random.uniform((1000,), dtype=dtype, low=-1, high=2, seed=3)
    if kind == 'normal':    # an odd count: CNTK makes one normal more per evaluation
        return C.random.normal((1001,), dtype=dtype, mean=0.5, scale=2, seed=4)
    if kind == 'bernoulli':
        return C.random.bernoulli((1000,), dtype=dtype, mean=0.3, seed=5)
    return C.random.gumbel((1000,), dtype=dtype, loc=0.1, scale=1.5, seed=6)


@pytest.mark.parametrize('kind, dtype', sorted(CASES, key=str), ids=lambda v: getattr(v, '__name__', v))
def test_sampler_values_are_cntks(kind, dtype):
    node = sampler(kind, dtype)
    calls = [np.asarray(node.eval(), dtype=np.float64).reshape(-1) for _ in range(2)]
    digest, first = CASES[(kind, dtype)]
    assert [float(v).hex() for v in calls[1][:2]] == first
    assert hashlib.sha256(np.stack(calls).astype('<f8').tobytes()).hexdigest() == digest


def _drawn_classes(sampler, count, classes):
    r = sampler.eval()
    r = r.toarray() if hasattr(r, "toarray") else np.asarray(r)
    return np.argmax(r.reshape(count, classes), axis=1).tolist()


def test_random_sample_draws_cntk27s_classes():
    # CNTK 2.7: std::uniform_real_distribution<double>(0, sum of weights) over the node's mt19937_64 engine, then
    # the first class whose running weight sum reaches the value; the stream goes on from one eval to the next
    q = C.constant(np.arange(100, dtype=np.float32) + 1)
    s = C.random_sample(q, 8, True, seed=98052)
    assert _drawn_classes(s, 8, 100) == [96, 90, 69, 96, 6, 42, 7, 34]
    assert _drawn_classes(s, 8, 100) == [84, 54, 20, 99, 68, 64, 32, 68]


def test_random_sample_without_replacement_draws_cntk27s_classes():
    # CNTK 2.7 draws again while a class comes up a second time
    q = C.constant(np.array([50, 1, 1, 30, 5, 5, 2, 2, 2, 2], dtype=np.float32))
    s = C.random_sample(q, 6, False, seed=7)
    assert _drawn_classes(s, 6, 10) == [3, 7, 0, 5, 4, 9]
    assert _drawn_classes(s, 6, 10) == [9, 4, 0, 3, 1, 5]
    assert _drawn_classes(s, 6, 10) == [3, 0, 8, 1, 5, 2]


@pytest.mark.parametrize("seed, index, bits", [
    # CNTK 2.7's bernoulli((1000000,), mean=0.5, seed=seed), values index - 10 .. index + 29: the engine's draw at
    # ``index`` rounds to 1 in float32; CNTK keeps it (a 1), and the values after it stay in step
    (102, 275721, "0100010110100001000001010101101001101111"),
    (20, 863383, "0110100000101101010001010001101100101111")])
def test_a_draw_that_rounds_to_one_is_kept_as_cntk_keeps_it(seed, index, bits):
    values = C.random.bernoulli((index + 30,), mean=0.5, seed=seed).eval()
    assert "".join(str(int(v)) for v in values[index - 10:]) == bits
