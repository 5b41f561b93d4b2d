"""cntk.random: Functions that draw random numbers from a distribution on every evaluation.

The shaped samplers have no inputs; the ``*_like`` ones copy the shape, dtype and dynamic axes of ``x``.
With an explicit seed, a sampler's draws are reproducible and successive evaluations continue the stream.
"""
import numpy as np

from ..default_options import default_override_or, get_default_override
from ..ops.sampling import SentinelValueForAutoSelectRandomSeed as auto_select
from ..ops.sampling import random_op as _random_op  # private: CNTK 2.7's cntk.random has no `random_op`


def uniform(shape, dtype=default_override_or(np.float32), low=0.0, high=1.0, seed=auto_select, name=""):
    """Samples from the uniform distribution on [low, high)."""
    return _random_op("uniform", None, shape, get_default_override(uniform, dtype=dtype), low, high, seed, name)


def normal(shape, dtype=default_override_or(np.float32), mean=0.0, scale=1.0, seed=auto_select, name=""):
    """Samples from the normal distribution with mean ``mean`` and standard deviation ``scale``."""
    return _random_op("normal", None, shape, get_default_override(normal, dtype=dtype), mean, scale, seed, name)


def gumbel(shape, dtype=default_override_or(np.float32), loc=0.0, scale=1.0, seed=auto_select, name=""):
    """Samples from the Gumbel distribution with location ``loc`` and scale ``scale``."""
    return _random_op("gumbel", None, shape, get_default_override(gumbel, dtype=dtype), loc, scale, seed, name)


def bernoulli(shape, dtype=default_override_or(np.float32), mean=0.5, seed=auto_select, name=""):
    """Samples from the Bernoulli distribution with success probability ``mean`` (values 0 and 1)."""
    return _random_op("bernoulli", None, shape, get_default_override(bernoulli, dtype=dtype), mean, 0.0, seed, name)


def uniform_like(x, low=0.0, high=1.0, seed=auto_select, name=""):
    return _random_op("uniform", x, None, None, low, high, seed, name)


def normal_like(x, mean=0.0, scale=1.0, seed=auto_select, name=""):
    return _random_op("normal", x, None, None, mean, scale, seed, name)


def gumbel_like(x, loc=0.0, scale=1.0, seed=auto_select, name=""):
    return _random_op("gumbel", x, None, None, loc, scale, seed, name)


def bernoulli_like(x, mean=0.5, seed=auto_select, name=""):
    return _random_op("bernoulli", x, None, None, mean, 0.0, seed, name)


__all__ = [
    "uniform", "normal", "gumbel", "bernoulli", "uniform_like", "normal_like", "gumbel_like", "bernoulli_like",
    "auto_select", "default_override_or"
]



def __getattr__(name):
    # CNTK's message names its own module: `import random` followed by `from cntk import *` binds `random` to
    # this module (CNTK_203 then calls random.random()), and CNTK 2.7 says "module 'cntk.random' has no
    # attribute 'random'"
    raise AttributeError("module 'cntk.random' has no attribute %r" % name)
