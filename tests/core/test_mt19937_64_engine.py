"""The compiled mt19937_64 engine (built at install time when a C compiler is present) gives the outputs of the
numpy one, which gives std::mt19937_64's (the 10000th output for the default seed is C++'s documented value)."""
import os

import numpy as np
import pytest

from cntk_compat.core import cntk_rng


def _numpy_draws(seed, counts, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(cntk_rng, "_twist_blocks", None)
        engine = cntk_rng.MT19937_64(seed)
        return [engine.draws(c) for c in counts]


def test_numpy_engine_gives_std_mt19937_64s_10000th_output(monkeypatch):
    (draws,) = _numpy_draws(5489, [10000], monkeypatch)
    assert int(draws[-1]) == 9981545732273789042


@pytest.mark.skipif(cntk_rng._twist_blocks is None, reason="the compiled engine is not built here")
def test_compiled_engine_continues_as_the_numpy_one(monkeypatch):
    counts = [1, 311, 312, 313, 5000]
    engine = cntk_rng.MT19937_64(12345)
    compiled = [engine.draws(c) for c in counts]
    assert int(cntk_rng.MT19937_64(5489).draws(10000)[-1]) == 9981545732273789042
    for a, b in zip(compiled, _numpy_draws(12345, counts, monkeypatch)):
        np.testing.assert_array_equal(a, b)


def test_the_compiled_engine_was_built_where_required():
    # CI sets REQUIRE_NATIVE=1 (.ci/run): there the test above must run instead of being skipped
    if os.environ.get("REQUIRE_NATIVE") == "1":
        assert cntk_rng._twist_blocks is not None, \
            "REQUIRE_NATIVE=1, but cntk_compat/core/_mt19937_64_native did not build (is a C compiler installed?)"
