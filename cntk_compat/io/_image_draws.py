"""CNTK 2.7's random draws for the image transforms (measured on CNTK 2.7, see docs/NUMBERS.md).

Every random transform of an image stream owns one 32-bit Mersenne Twister (``std::mt19937``) per position k
of the minibatch, seeded with k; the k-th image of every minibatch is transformed with the k-th engine, which
goes on from minibatch to minibatch and from sweep to sweep. The draws are boost's distributions, each over
one 32-bit output. An engine's state is the number of outputs it has given (its checkpoint state).
"""
import math

import numpy as np

_MAX = 2 ** 32 - 1      # the engine's outputs span 0 .. 2^32 - 1


class Engine(object):
    """One position's ``std::mt19937``, counting the outputs it gives."""
    __slots__ = ('_bits', 'drawn')

    def __init__(self, seed, drawn=0):
        self._bits = np.random.MT19937()
        self._bits._legacy_seeding(seed)    # std::mt19937's seeding (init_genrand)
        if drawn:
            self._bits.random_raw(drawn)
        self.drawn = drawn

    def next(self):
        self.drawn += 1
        return int(self._bits.random_raw())


class PositionEngines(object):
    """The engines of one transform, by position in the minibatch (created when a minibatch first has it)."""

    def __init__(self):
        self._engines = []

    def upto(self, n):
        """The engines of positions 0 .. n-1."""
        while len(self._engines) < n:
            self._engines.append(Engine(len(self._engines)))
        return self._engines[:n]

    def get_state(self):
        return [e.drawn for e in self._engines]

    def set_state(self, drawn):
        self._engines = [Engine(k, int(n)) for k, n in enumerate(drawn)]


def uniform_int(engine, lo, hi):
    """boost's uniform_int_distribution(lo, hi): one value draws nothing, else the bucket of a 32-bit output
    (outputs past the last whole bucket are drawn again)."""
    n = hi - lo + 1
    if n == 1:
        return lo
    bucket = _MAX // n + (1 if _MAX % n == n - 1 else 0)
    while True:
        v = engine.next() // bucket
        if v < n:
            return lo + v


def uniform_real(engine, lo, hi):
    """boost's uniform_real_distribution<double>(lo, hi) over one 32-bit output."""
    while True:
        r = engine.next() / 4294967296.0 * (hi - lo) + lo
        if r < hi:
            return r


def bernoulli(engine):
    """boost's bernoulli_distribution(0.5)."""
    return engine.next() <= 0.5 * _MAX


def _single(value):
    """A ratio as CNTK holds it: read into a C float."""
    return float(np.float32(value))


def _jitter(t, pair, engine):
    lo, hi = _single(pair[0]), _single(pair[1])
    if t.jitter_type == 'none' or lo == hi:
        return lo
    return uniform_real(engine, lo, hi)


def crop_draws(t):
    """Whether the crop transform ``t`` draws anything."""
    if t.crop_type in ('randomside', 'randomarea'):
        return True
    if t.crop_size[0] > 0 and t.crop_size[1] > 0:
        return False
    ranges = [t.aspect_ratio] + [r for r in (t.side_ratio, t.area_ratio) if r != (0.0, 0.0)]
    return _single(t.aspect_ratio[0]) != 1.0 or (t.jitter_type == 'uniratio' and any(lo != hi for lo, hi in ranges))


def _window(t, h, w, engine):
    """The crop window's (width, height): up to 10 tries of the ratio draws for one that fits, else the image."""
    if t.crop_size[0] > 0 and t.crop_size[1] > 0:
        return min(w, int(t.crop_size[0])), min(h, int(t.crop_size[1]))
    cw, ch = w, h
    for _ in range(10):
        if t.side_ratio != (0.0, 0.0):
            cw = ch = int(math.floor(min(h, w) * _jitter(t, t.side_ratio, engine) + 0.5))
        elif t.area_ratio != (0.0, 0.0):
            cw = ch = int(math.floor(math.sqrt(h * w * _jitter(t, t.area_ratio, engine)) + 0.5))
        aspect = _jitter(t, t.aspect_ratio, engine)
        if aspect != 1.0:
            area = cw * ch
            wide, tall = int(math.sqrt(area * aspect)), int(math.sqrt(area / aspect))
            cw, ch = (wide, tall) if bernoulli(engine) else (tall, wide)
        if cw <= w and ch <= h:
            return cw, ch
    return w, h


def crop_rect(t, h, w, engine):
    """CNTK's crop of an h x w image: (x, y, width, height, flipped), drawn from ``engine``."""
    cw, ch = _window(t, h, w, engine)
    if t.crop_type in ('randomside', 'randomarea'):
        x, y = uniform_int(engine, 0, w - cw), uniform_int(engine, 0, h - ch)
        return x, y, cw, ch, bernoulli(engine)
    return (w - cw) // 2, (h - ch) // 2, cw, ch, False
