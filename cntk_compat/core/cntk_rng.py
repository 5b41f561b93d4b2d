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
import decimal
import math

import numpy as np
import torch

from .launcher import launched_workers

try:  # the compiled engine, built at install time when a C compiler is present (numpy below otherwise)
    from ._mt19937_64_native import twist_blocks as _twist_blocks
except ImportError:
    _twist_blocks = None
try:  # the initializers' samples drawn and rounded in one compiled pass (the numpy code below otherwise)
    from ._mt19937_64_native import normal_fill as _normal_fill, uniform_fill as _uniform_fill
except ImportError:
    _normal_fill = _uniform_fill = None

_FILLED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))  # the element types the compiled fills write


def _empty(count, dtype):
    """An uninitialized float32/float64 array of ``count`` values, allocated by torch: numpy asks the kernel for
    transparent huge pages on large arrays, whose first touch can stall for seconds on a loaded machine while the
    kernel compacts memory; the Parameter made from it keeps the same memory."""
    return torch.empty(int(count), dtype=torch.float32 if dtype == np.float32 else torch.float64).numpy()

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
        if _twist_blocks is not None:
            out = np.empty(-(-int(count) // _N) * _N, np.uint64)
            _twist_blocks(self._state, out)
            return out[:count]
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

    def peek(self, count):
        """The next ``count`` outputs, left in the stream."""
        count = int(count)
        if count > len(self._left):
            fresh = self._engine.draws(-(-(count - len(self._left)) // _N) * _N)
            self._left = np.concatenate([self._left, fresh])
        return self._left[:count]

    def skip(self, count):
        self.peek(count)
        self._left = self._left[int(count):]
        self.position += int(count)

    def take(self, count):
        out = self.peek(count)
        self.skip(count)
        return out


def boost_uniform01(stream, count, dtype):
    """``count`` values of Boost's ``uniform_real_distribution<T>(0, 1)`` over ``stream`` (an EngineStream) as
    CNTK 2.7's CPU random masks draw them, T = ``dtype``: the draw converted to T and divided by 2**64 in T, one
    draw per value. A draw within 2**39 of 2**64 rounds to 1 in float32; CNTK 2.7 keeps it (one draw, a value
    above any rate below 1), where Boost's source would draw again (measured on its dropout and bernoulli
    streams: the next values stay in step only without the redraw)."""
    dtype = np.dtype(dtype)
    return stream.take(int(count)).astype(dtype) * dtype.type(2.0 ** -64)


def uniform_double(stream, count, low, high):
    """``count`` values of Boost's ``uniform_real_distribution<double>(low, high)`` over ``stream``:
    u / 2**64 * (high - low) + low in double precision; a result equal to ``high`` is redrawn."""
    parts, need = [], int(count)
    while need > 0:
        r = stream.take(need).astype(np.float64) / 18446744073709551616.0 * (high - low) + low
        r = r[r < high]
        parts.append(r)
        need -= len(r)
    return np.concatenate(parts) if parts else np.empty(0, np.float64)


def uniform(seed, count, low, high, dtype=np.float32):
    """``count`` samples in [low, high) as CNTK's CPU initializer draws them for ``seed``. The compiled fill
    (when built) computes the same doubles in the same order and rounds each once to ``dtype``, writing the
    result directly (no double-precision copy of the whole tensor)."""
    dtype = np.dtype(dtype)
    low, high = float(dtype.type(low)), float(dtype.type(high))
    if _uniform_fill is not None and dtype in _FILLED_DTYPES:
        out = _empty(count, dtype)
        _uniform_fill(MT19937_64(seed)._state, out, low, high)
        return out
    return uniform_double(EngineStream(seed), count, low, high).astype(dtype)


def _ziggurat_tables():
    """Boost's normal ziggurat (Marsaglia and Tsang, 128 layers over f(x) = exp(-x*x/2)), computed to 60 digits
    from its definition and rounded to double: x[1] = r, the root that closes the layers; v = r f(r) + the
    tail's area; x[0] = v / f(r); x[i+1] = sqrt(-2 ln(f(x[i]) + v / x[i])); x[128] = 0; y[i] = f(x[i]),
    y[0] = 0, y[128] = 1."""
    context = decimal.Context(prec=60)

    def f(x):
        return context.exp(-(x * x) / 2)

    r = decimal.Decimal("3.44261985589665212142432049146733970433759738585087778251240")
    q = decimal.Decimal(0)
    for k in range(2000, 0, -1):        # the tail's area, f(r) / (r + 1/(r + 2/(r + ...))) (continued fraction)
        q = context.divide(k, r + q)
    v = r * f(r) + context.divide(f(r), r + q)
    xs = [context.divide(v, f(r)), r]
    for i in range(1, 127):
        xs.append(context.sqrt(-2 * context.ln(f(xs[i]) + context.divide(v, xs[i]))))
    ys = [decimal.Decimal(0)] + [f(x) for x in xs[1:]] + [decimal.Decimal(1)]
    xs.append(decimal.Decimal(0))
    return np.array([float(x) for x in xs]), np.array([float(y) for y in ys])


_ZIGGURAT = []


def _u01(draws, j):
    """Boost's uniform_01<double> from draws[j:]: (value, index after it), or (None, None) past the end."""
    while j < len(draws):
        value = float(int(draws[j])) * 2.0 ** -64
        j += 1
        if value < 1.0:
            return value, j
    return None, None


def _ziggurat_slow(draws, j, table_x, table_y):
    """The rest of one ziggurat draw whose first output (draws[j]) fell outside its layer's box:
    (value or None when rejected, index after the draws used), or (None, None) when ``draws`` runs out."""
    u = int(draws[j])
    bucket = u & 0xFF
    sign = 1.0 if bucket & 1 else -1.0
    i = bucket >> 1
    x = float((u & ~(1 << 11)) >> 8) * 2.0 ** -56 * table_x[i]
    j += 1
    if i == 0:      # the tail beyond x[1]: exponential proposals, -log(1 - uniform_01), Boost <= 1.70
        start = table_x[1]
        while True:
            a, j = _u01(draws, j)
            if a is None:
                return None, None
            b, j = _u01(draws, j)
            if b is None:
                return None, None
            t, e = -math.log(1.0 - a) / start, -math.log(1.0 - b)
            if 2 * e > t * t:
                return (t + start) * sign, j
    y01, j = _u01(draws, j)
    if y01 is None:
        return None, None
    y = table_y[i] + y01 * (table_y[i + 1] - table_y[i])
    return (x * sign if y < math.exp(-(x * x / 2)) else None), j


def unit_normals(stream, count):
    """``count`` draws of Boost's ``normal_distribution<double>(0, 1)`` over ``stream`` (an EngineStream).

    Each value takes one 64-bit output: its low 8 bits pick a layer (bits 1-7) and a sign (bit 0); bits 8-63,
    with bit 11 cleared first (Boost's int_float_pair), scaled by 2**-56, give x = fraction * x[layer], returned
    at once when x < x[layer + 1] (about 99% of draws, done here in numpy); the rest take more outputs (a
    uniform for the wedge test, or the tail) and are done one by one."""
    if not _ZIGGURAT:
        _ZIGGURAT.extend(_ziggurat_tables())
    table_x, table_y = _ZIGGURAT
    result = np.empty(int(count), np.float64)
    filled = 0
    while filled < count:
        draws = stream.peek(int((count - filled) * 1.05) + 64)
        layer = (draws & np.uint64(0xFF)).astype(np.int64)
        fraction = ((draws & ~np.uint64(1 << 11)) >> np.uint64(8)).astype(np.float64) * 2.0 ** -56
        x = fraction * table_x[layer >> 1]
        fast = x < table_x[(layer >> 1) + 1]
        value = np.where(layer & 1, x, -x)
        slow = np.flatnonzero(~fast).tolist() + [len(draws)]
        pos, k = 0, 0
        while filled < count:
            while slow[k] < pos:
                k += 1
            run = min(slow[k] - pos, count - filled)
            result[filled:filled + run] = value[pos:pos + run]
            filled, pos = filled + run, pos + run
            if filled == count or pos == len(draws):
                break
            drawn, after = _ziggurat_slow(draws, pos, table_x, table_y)
            if after is None:
                break
            pos = after
            if drawn is not None:
                result[filled] = drawn
                filled += 1
        stream.skip(pos)
    return result


def normal(seed, count, std, dtype=np.float32, truncate=False):
    """``count`` samples of N(0, std) as CNTK's CPU initializer draws them for ``seed`` (in double precision,
    then rounded to ``dtype``); with ``truncate``, values outside [-2 std, 2 std] are redrawn. The compiled fill
    (when built) does the whole ziggurat, slow draws included, in one pass with the same arithmetic."""
    std = float(std)
    dtype = np.dtype(dtype)
    if _normal_fill is not None and dtype in _FILLED_DTYPES:
        if not _ZIGGURAT:
            _ZIGGURAT.extend(_ziggurat_tables())
        out = _empty(count, dtype)
        _normal_fill(MT19937_64(seed)._state, out, std, bool(truncate), _ZIGGURAT[0], _ZIGGURAT[1])
        return out
    stream = EngineStream(seed)
    if not truncate:
        return (unit_normals(stream, count) * std).astype(dtype)
    parts, need = [], int(count)
    while need > 0:
        v = unit_normals(stream, need) * std
        v = v[(v >= -2 * std) & (v <= 2 * std)]
        parts.append(v)
        need -= len(v)
    return np.concatenate(parts).astype(dtype)


_seed_state = {"next": 0, "fixed": False}


def generate_random_seed(per_worker_local_value=False):
    """The next automatic seed: the counter's value, incremented afterwards unless the seed is fixed. A
    per-worker seed (CNTK's random nodes: dropout, the samplers, random_sample) is counter * workers + rank in a
    job of several workers, as CNTK 2.7 makes it, so that each worker draws its own masks; a fixed seed stays
    the same in every worker."""
    seed = _seed_state["next"]
    if not _seed_state["fixed"]:
        _seed_state["next"] = seed + 1
        if per_worker_local_value:
            workers, rank = launched_workers()
            seed = seed * workers + rank
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
