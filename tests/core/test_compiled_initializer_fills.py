"""The compiled initializer fills (uniform_fill, normal_fill in core/_mt19937_64_native.c) give, bit for bit, the
samples of the numpy code they replace (which tests/test_initializer_numbers.py and
tests/test_normal_initializer_numbers.py check against CNTK 2.7's own values): same doubles, same redraws (uniform
results equal to high, the ziggurat's wedge and tail draws, truncation), rounded once to the element type."""
import numpy as np
import pytest

from cntk_compat.core import cntk_rng

pytestmark = pytest.mark.skipif(cntk_rng._uniform_fill is None, reason="the compiled engine is not built here")


def _numpy(monkeypatch, fn, *args, **kwargs):
    with monkeypatch.context() as m:
        m.setattr(cntk_rng, "_uniform_fill", None)
        m.setattr(cntk_rng, "_normal_fill", None)
        m.setattr(cntk_rng, "_twist_blocks", None)
        return fn(*args, **kwargs)


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))  # bit patterns, -0.0 included


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed,count,low,high", [(0, 1, -1.0, 1.0), (1, 311, -0.5, 0.5), (12345, 313, -3.0, 3.0),
                                                 (7, 100003, -0.0721, 0.0721), (2 ** 64 - 4, 5000, 0.0, 1e-30)])
def test_uniform_fill_gives_the_numpy_samples(monkeypatch, dtype, seed, count, low, high):
    _same(cntk_rng.uniform(seed, count, low, high, dtype), _numpy(monkeypatch, cntk_rng.uniform, seed, count, low,
                                                                   high, dtype))


def test_uniform_fill_redraws_a_result_equal_to_high(monkeypatch):
    # with a range this narrow next to 1.0 many doubles u/2**64 * (high - low) + low round up to high (=1)
    low, high = 1.0 - 2.0 ** -52, 1.0
    expected = _numpy(monkeypatch, cntk_rng.uniform, 3, 20000, low, high, np.float64)
    raw = cntk_rng.EngineStream(3).take(20000).astype(np.float64) / 2.0 ** 64 * (high - low) + low
    assert (raw == high).sum() > 1000  # redrawn ones
    _same(cntk_rng.uniform(3, 20000, low, high, np.float64), expected)
    assert (expected < high).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("truncate", [False, True])
@pytest.mark.parametrize("seed,count,std", [(0, 1, 1.0), (5, 1000, 0.01), (98765, 400000, 2.5)])
def test_normal_fill_gives_the_numpy_samples(monkeypatch, dtype, truncate, seed, count, std):
    got = cntk_rng.normal(seed, count, std, dtype, truncate=truncate)
    _same(got, _numpy(monkeypatch, cntk_rng.normal, seed, count, std, dtype, truncate=truncate))


def test_normal_fill_covers_the_tail_and_the_wedges(monkeypatch):
    # 400000 normals take the tail (|x| > 3.44, about 230 of them) and a few thousand wedge tests
    values = cntk_rng.normal(11, 400000, 1.0, np.float64)
    assert (np.abs(values) > 3.4426).sum() > 50
    _same(values, _numpy(monkeypatch, cntk_rng.normal, 11, 400000, 1.0, np.float64))
