"""cntk.initializer: random and structured initial values for Parameters.

A random initializer draws CNTK's own numbers (see core/cntk_rng.py): a Parameter created with it takes a
seed when it is created (the initializer's ``seed``, else the next automatic seed), and its value is drawn
from that seed as CNTK 2.7 draws it on the CPU, so a script gives the same initial weights under both.
Fans follow CNTK's rule on its column-major shape (the reversed Python shape): ``output_rank`` axes of
outputs, ``filter_rank`` axes of receptive field, the rest inputs (default output_rank 1, filter_rank 0);
fan_in = receptive field * inputs, fan_out = receptive field * outputs.
"""
import math

import numpy as np

from .core import cntk_rng
from .core.native_errors import announced
from .core.variables import shape_text

__all__ = ["DefaultParamInitScale", "SentinelValueForInferParamInitRank", "SentinelValueForAutoSelectRandomSeed",
           "uniform", "normal", "xavier", "glorot_uniform", "glorot_normal", "he_uniform", "he_normal", "bilinear",
           "initializer_with_rank", "truncated_normal"]

DefaultParamInitScale = 1.0
SentinelValueForInferParamInitRank = 2147483647
SentinelValueForAutoSelectRandomSeed = cntk_rng.SentinelValueForAutoSelectRandomSeed

_UNIFORM_KINDS = ("uniform", "xavier", "glorot_uniform", "he_uniform")
_RANKLESS_KINDS = ("uniform", "truncated_normal")  # CNTK ignores output_rank / filter_rank for these
_MAX_SEED = 2 ** 64  # CNTK takes the seed as an unsigned long


def _checked_seed(kind, seed):
    """seed as CNTK 2.7's initializer constructors take it: None (automatic) or an int in [0, 2**64); anything
    else fails there (SWIG's overload resolution) with a NotImplementedError."""
    if seed is None or seed == SentinelValueForAutoSelectRandomSeed:
        return None
    if not isinstance(seed, (int, np.integer)) or not 0 <= seed < _MAX_SEED:
        raise NotImplementedError("%s: seed must be a non-negative int (below 2**64), got %r" % (kind, seed))
    return int(seed)


def _fans(shape, output_rank, filter_rank):
    """(fan_in, fan_out) of a parameter of Python shape ``shape``, computed on CNTK's reversed shape."""
    dims = tuple(reversed(tuple(shape)))
    rank = len(dims)
    if output_rank == SentinelValueForInferParamInitRank:
        output_rank = 1
    if filter_rank == SentinelValueForInferParamInitRank:
        filter_rank = 0
    if filter_rank + output_rank > rank:
        raise announced(ValueError, "Sum of filter rank (%d) and output rank (%d) of the parameter initializer cannot "
                                    "exceed the Parameter shape '%s' rank (%d)"
                        % (filter_rank, output_rank, shape_text(tuple(shape)), rank))
    receptive = int(np.prod(dims[:filter_rank], dtype=np.int64))
    begin = filter_rank + max(output_rank, 0)
    end = rank if output_rank >= 0 else rank + output_rank
    fan_in = receptive * int(np.prod(dims[begin:end], dtype=np.int64))
    fan_out = int(np.prod(dims, dtype=np.int64)) * receptive // fan_in if fan_in else 0
    return fan_in, fan_out


_CNTK_INITIALIZER_NAMES = {"uniform": "uniform1", "normal": "normal", "xavier": "xavier",
                           "glorot_uniform": "glorotUniform", "glorot_normal": "glorotNormal",
                           "he_uniform": "heUniform", "he_normal": "heNormal", "truncated_normal": "TruncNormal"}


class Initializer(object):
    """A random initializer: ``kind`` names the distribution and the rule for its width."""

    def __init__(self, kind, scale, output_rank=SentinelValueForInferParamInitRank,
                 filter_rank=SentinelValueForInferParamInitRank, seed=None):
        self.kind = kind
        self.scale = float(scale)
        if not self.scale > 0:  # CNTK refuses it when the initializer is made (its message says 0 for any scale <= 0)
            raise ValueError("CreateInitializer: scale value for initializer '%s' cannot be 0."
                             % _CNTK_INITIALIZER_NAMES.get(kind, kind))
        self.output_rank = int(output_rank)
        self.filter_rank = int(filter_rank)
        self.seed = _checked_seed(kind, seed)

    def with_rank(self, output_rank=None, filter_rank=None):
        """This initializer with output_rank and filter_rank set (None: CNTK's "infer" sentinel), as CNTK 2.7's
        initializer_with_rank: `uniform` ignores ranks; `truncated_normal` has none to set (CNTK fails looking
        them up); a rank set when the initializer was made may only be "overridden" by the same value."""
        if self.kind == "uniform":
            return self
        if self.kind == "truncated_normal":
            raise RuntimeError("initializer_with_rank: a truncated_normal initializer has no output_rank or "
                               "filter_rank to set")
        output_rank = SentinelValueForInferParamInitRank if output_rank is None else int(output_rank)
        filter_rank = SentinelValueForInferParamInitRank if filter_rank is None else int(filter_rank)
        for what, mine, new in (("Output", self.output_rank, output_rank), ("Filter", self.filter_rank, filter_rank)):
            if mine != SentinelValueForInferParamInitRank and mine != new:
                raise ValueError("%s rank (%d) of the %s initializer cannot be overridden (with %s) once it has "
                                 "been specified" % (what, mine, self.kind,
                                                     "the default" if new == SentinelValueForInferParamInitRank
                                                     else new))
        return Initializer(self.kind, self.scale, output_rank, filter_rank, self.seed)

    def for_new_parameter(self):
        """This initializer with its seed settled, as CNTK settles it when a Parameter is created."""
        seed = self.seed if self.seed is not None else cntk_rng.generate_random_seed()
        return Initializer(self.kind, self.scale, self.output_rank, self.filter_rank, seed)

    def _width(self, shape, dtype):
        """CNTK's range (uniform) or standard deviation (normal), rounded to the element type as CNTK does."""
        if self.kind in _RANKLESS_KINDS:
            base = 1.0
        else:
            fan_in, fan_out = _fans(tuple(shape), self.output_rank, self.filter_rank)
            base = {"normal": 1.0,
                    "xavier": math.sqrt(3.0 / fan_in),
                    "glorot_uniform": math.sqrt(6.0 / (fan_in + fan_out)),
                    "glorot_normal": math.sqrt(2.0 / (fan_in + fan_out)),
                    "he_uniform": math.sqrt(6.0 / fan_in),
                    "he_normal": math.sqrt(2.0 / fan_in)}[self.kind]
        real = np.dtype(dtype).type
        return float(real(base) * real(self.scale))

    def generate(self, shape, dtype=np.float32):
        shape = tuple(shape)
        count = int(np.prod(shape, dtype=np.int64))
        if count == 0:
            return np.zeros(shape, dtype=dtype)
        seed = self.seed if self.seed is not None else cntk_rng.generate_random_seed()
        width = self._width(shape, dtype)
        if self.kind in _UNIFORM_KINDS:
            return cntk_rng.uniform(seed, count, -width, width, dtype).reshape(shape)
        return cntk_rng.normal(seed, count, width, dtype, truncate=self.kind == "truncated_normal").reshape(shape)

    def __repr__(self):
        return "%s(scale=%g, output_rank=%d, filter_rank=%d)" % (self.kind, self.scale, self.output_rank,
                                                                 self.filter_rank)


class _Constant(object):
    """Every element ``value`` (cntk_py.constant_initializer)."""

    def __init__(self, value):
        self.value = float(value)

    def with_rank(self, output_rank=None, filter_rank=None):
        return self  # not random: CNTK's initializer_with_rank leaves it as it is

    def generate(self, shape, dtype=np.float32):
        return np.full(tuple(shape), self.value, dtype=dtype)


class _Bilinear(object):
    """Bilinear upsampling kernel (for convolution_transpose), replicated over the leading axes."""

    def __init__(self, kernel_width, kernel_height):
        self.kernel_width, self.kernel_height = int(kernel_width), int(kernel_height)

    def with_rank(self, output_rank=None, filter_rank=None):
        return self  # not random: CNTK's initializer_with_rank leaves it as it is

    def generate(self, shape, dtype=np.float32):
        def profile(k):
            # the interpolation weights of upsampling by f = ceil(k/2), centred on the kernel; CNTK computes them in
            # float32 whatever the parameter's type
            f = np.float32(math.ceil(k / 2.0))
            centre = f - np.float32(1 if k % 2 else 0.5)
            return np.float32(1) - np.abs(np.arange(k, dtype=np.float32) - centre) / f
        if self.kernel_width != self.kernel_height:
            raise RuntimeError("bilinear: the filter for bilinear interpolation must be square, got %dx%d"
                               % (self.kernel_width, self.kernel_height))
        shape = tuple(shape)
        if len(shape) < 4:
            raise RuntimeError("bilinear: the parameter needs the axes (output channels, input channels, height, "
                               "width), got shape %s" % (shape,))
        if shape[-2:] != (self.kernel_height, self.kernel_width):
            raise RuntimeError("bilinear: a %dx%d kernel does not fit a parameter of shape %s"
                               % (self.kernel_width, self.kernel_height, shape))
        if shape[-3] != shape[-4]:
            raise RuntimeError("bilinear: the number of input and output channels of a filter for bilinear "
                               "interpolation must be equal, got shape %s" % (shape,))
        kernel = np.outer(profile(self.kernel_height), profile(self.kernel_width)).astype(np.float32)
        out = np.zeros(shape, dtype=dtype)
        # one kernel per channel, from channel c to channel c; axes before the four stay zero past their first index
        first = out.reshape((-1,) + shape[-4:])[0]
        for c in range(shape[-3]):
            first[c, c] = kernel
        return out


def uniform(scale, seed=None):
    """Uniform in [-scale, scale]."""
    return Initializer("uniform", scale, seed=seed)


def normal(scale, output_rank=SentinelValueForInferParamInitRank, filter_rank=SentinelValueForInferParamInitRank,
           seed=None):
    """Gaussian with standard deviation scale."""
    return Initializer("normal", scale, output_rank, filter_rank, seed)


def _fan_scaled(kind, doc):
    """The public constructor of one fan-scaled initializer kind (xavier, glorot_*, he_*)."""
    def make(scale=DefaultParamInitScale, output_rank=SentinelValueForInferParamInitRank,
             filter_rank=SentinelValueForInferParamInitRank, seed=None):
        return Initializer(kind, scale, output_rank, filter_rank, seed)
    make.__name__ = make.__qualname__ = kind
    make.__doc__ = doc
    return make


xavier = _fan_scaled("xavier", "Uniform in +-scale*sqrt(3/fan_in).")
glorot_uniform = _fan_scaled("glorot_uniform", "Uniform in +-scale*sqrt(6/(fan_in+fan_out)).")
glorot_normal = _fan_scaled("glorot_normal", "Gaussian with standard deviation scale*sqrt(2/(fan_in+fan_out)).")
he_uniform = _fan_scaled("he_uniform", "Uniform in +-scale*sqrt(6/fan_in).")
he_normal = _fan_scaled("he_normal", "Gaussian with standard deviation scale*sqrt(2/fan_in).")


def bilinear(kernel_width, kernel_height):
    return _Bilinear(kernel_width, kernel_height)


def initializer_with_rank(initializer, output_rank=None, filter_rank=None):
    """A copy of a random initializer with output_rank / filter_rank set (see Initializer.with_rank)."""
    if not hasattr(initializer, "with_rank"):
        raise TypeError("initializer_with_rank: expected a random initializer, got %r" % (initializer,))
    return initializer.with_rank(output_rank, filter_rank)


def truncated_normal(stdev, seed=None):
    """Gaussian with standard deviation stdev, redrawn outside two standard deviations."""
    return Initializer("truncated_normal", stdev, seed=seed)
