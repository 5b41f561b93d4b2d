"""CNTK's random streams for parameter initialization, reproduced bit for bit.

CNTK 2.7 initializes a random Parameter on the CPU with ``std::mt19937_64`` seeded with the parameter's
seed and Boost's ``uniform_real_distribution``: sample = u / 2**64 * (high - low) + low, computed in double
precision from the 64-bit draw u (a result equal to ``high`` is rejected and redrawn), then rounded to the
parameter's element type. Elements are drawn in CNTK's column-major order, which is numpy's C order of the
(reversed) Python shape, so the flat draw reshapes directly.

The seed comes from one process-wide counter (``generate_random_seed``): each Parameter created with a
random initializer and no explicit seed, and each random node (dropout, samplers) created without one,
takes the next value, starting at 0. ``reset_random_seed(v)`` restarts the counter at v;
``set_fixed_random_seed(v)`` makes every automatic seed v (explicit seeds still win).
"""
import numpy as np

# the seed argument's "choose one for me" value (CNTK: sentinel_value_for_auto_select_random_seed)
SentinelValueForAutoSelectRandomSeed = 2 ** 64 - 3

_N, _M = 312, 156
_MATRIX_A = np.uint64(0xB5026F5AA96619E9)
_UPPER = np.uint64(0xFFFFFFFF80000000)
_LOWER = np.uint64(0x7FFFFFFF)


class MT19937_64(object):
    """The 64-bit Mersenne Twister with C++'s ``std::mt19937_64`` seeding, generating whole blocks in numpy."""

    def __init__(self, seed):
        state = [int(seed) & 0xFFFFFFFFFFFFFFFF]
        for i in range(1, _N):
            prev = state[-1]
            state.append((6364136223846793005 * (prev ^ (prev >> 62)) + i) & 0xFFFFFFFFFFFFFFFF)
        self._state = np.array(state, dtype=np.uint64)

    def _twist(self):
        mt = self._state
        new = np.empty_like(mt)

        def mix(upper, lower, far):
            y = (upper & _UPPER) | (lower & _LOWER)
            return far ^ (y >> np.uint64(1)) ^ ((y & np.uint64(1)) * _MATRIX_A)

        # element i reads the old i and i+1 and, at distance M, an old value (i < N-M) or a new one
        new[:_N - _M] = mix(mt[:_N - _M], mt[1:_N - _M + 1], mt[_M:])
        new[_N - _M:_N - 1] = mix(mt[_N - _M:_N - 1], mt[_N - _M + 1:], new[:_M - 1])
        new[_N - 1] = mix(mt[_N - 1:], new[:1], new[_M - 1:_M])[0]
        self._state = new

    def next_block(self):
        """The next 312 outputs."""
        return self.draws(_N)

    @staticmethod
    def _temper(y):
        y ^= (y >> np.uint64(29)) & np.uint64(0x5555555555555555)
        y ^= (y << np.uint64(17)) & np.uint64(0x71D67FFFEDA60000)
        y ^= (y << np.uint64(37)) & np.uint64(0xFFF7EEE000000000)
        y ^= y >> np.uint64(43)
        return y

    def draws(self, count):
        """The next ``count`` 64-bit outputs (whole blocks are generated; the rest of the last is dropped)."""
        blocks = []
        for _ in range(-(-int(count) // _N)):
            self._twist()
            blocks.append(self._state)
        if not blocks:
            return np.empty(0, np.uint64)
        return self._temper(np.concatenate(blocks)[:count])


class EngineStream(object):
    """An mt19937_64 engine read in sequence: each ``take`` continues where the previous one stopped."""

    def __init__(self, seed, discard=0):
        self._engine = MT19937_64(seed)
        self._left = np.empty(0, np.uint64)
        self.position = 0
        if discard:
            self.take(discard)

    def take(self, count):
        count = int(count)
        if count > len(self._left):
            fresh = self._engine.draws(-(-(count - len(self._left)) // _N) * _N)
            self._left = np.concatenate([self._left, fresh])
        out, self._left = self._left[:count], self._left[count:]
        self.position += count
        return out


def boost_uniform01(stream, count, dtype):
    """``count`` values of Boost's ``uniform_real_distribution<T>(0, 1)`` over ``stream`` (an EngineStream),
    T = ``dtype``: the draw converted to T and divided by 2**64 in T; a result equal to 1 is redrawn."""
    dtype = np.dtype(dtype)
    parts, need = [], int(count)
    while need > 0:
        v = stream.take(need).astype(dtype) * dtype.type(2.0 ** -64)
        v = v[v < 1]
        parts.append(v)
        need -= len(v)
    return np.concatenate(parts) if parts else np.empty(0, dtype)


def uniform(seed, count, low, high, dtype=np.float32):
    """``count`` samples in [low, high) as CNTK's CPU initializer draws them for ``seed``."""
    dtype = np.dtype(dtype)
    low, high = float(dtype.type(low)), float(dtype.type(high))
    # a draw rounding up to ``high`` (odds about 2**-53) is rejected and the next one taken
    u = MT19937_64(seed).draws(int(count) + 64).astype(np.float64)
    r = u / 18446744073709551616.0 * (high - low) + low
    return r[r < high][:int(count)].astype(dtype)


_seed_state = {"next": 0, "fixed": False}


def generate_random_seed(per_worker_local_value=False):
    """The next automatic seed: the counter's value, incremented afterwards unless the seed is fixed."""
    seed = _seed_state["next"]
    if not _seed_state["fixed"]:
        _seed_state["next"] = seed + 1
    return seed


def reset_random_seed(value=0):
    """Restart the automatic seeds at ``value`` (and unfix them)."""
    _seed_state["next"], _seed_state["fixed"] = int(value), False


def set_fixed_random_seed(value):
    """Make every automatic seed ``value`` (CNTK: ``cntk_py.set_fixed_random_seed``)."""
    _seed_state["next"], _seed_state["fixed"] = int(value), True


def get_random_seed():
    """The value the next automatic seed takes."""
    return _seed_state["next"]


def is_random_seed_fixed():
    return _seed_state["fixed"]
