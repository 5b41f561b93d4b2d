"""cntk.initializer: random and structured initial values for Parameters.

An initializer is an object with ``generate(shape, dtype)``; it draws from torch's global RNG (seeded by
cntk.cntk_py.set_fixed_random_seed) unless given its own seed. Fans follow CNTK's rule: ``output_rank``
counts the output axes from the end of the shape (negative: from the front), ``filter_rank`` the axes of the
receptive field at the other end; the rest are input axes. fan_in = inputs * receptive field,
fan_out = outputs * receptive field.
"""
import math

import numpy as np
import torch

__all__ = ["DefaultParamInitScale", "SentinelValueForInferParamInitRank", "SentinelValueForAutoSelectRandomSeed",
           "uniform", "normal", "xavier", "glorot_uniform", "glorot_normal", "he_uniform", "he_normal", "bilinear",
           "initializer_with_rank", "truncated_normal"]

DefaultParamInitScale = 1.0
SentinelValueForInferParamInitRank = 2147483647
SentinelValueForAutoSelectRandomSeed = 2 ** 64 - 2


def _fans(shape, output_rank, filter_rank):
    rank = len(shape)
    if output_rank == SentinelValueForInferParamInitRank:
        output_rank = 1
    if filter_rank == SentinelValueForInferParamInitRank:
        filter_rank = 0
    if rank == 0:
        return 1, 1
    out_n = min(abs(output_rank), rank)
    filt_n = min(filter_rank, rank - out_n)
    if output_rank >= 0:
        out_axes, filt_axes = shape[rank - out_n:], shape[:filt_n]
        in_axes = shape[filt_n:rank - out_n]
    else:
        out_axes, filt_axes = shape[:out_n], shape[rank - filt_n:]
        in_axes = shape[out_n:rank - filt_n]
    receptive = int(np.prod(filt_axes)) if filt_n else 1
    return max(int(np.prod(in_axes)) * receptive, 1), max(int(np.prod(out_axes)) * receptive, 1)


class Initializer(object):
    """A random initializer: ``kind`` names the distribution and the rule for its width."""

    def __init__(self, kind, scale, output_rank=SentinelValueForInferParamInitRank,
                 filter_rank=SentinelValueForInferParamInitRank, seed=None):
        self.kind = kind
        self.scale = float(scale)
        self.output_rank = int(output_rank)
        self.filter_rank = int(filter_rank)
        self.seed = None if seed is None or seed == SentinelValueForAutoSelectRandomSeed else int(seed)

    def with_rank(self, output_rank=None, filter_rank=None):
        return Initializer(self.kind, self.scale,
                           self.output_rank if output_rank is None else output_rank,
                           self.filter_rank if filter_rank is None else filter_rank, self.seed)

    def _width(self, shape):
        fan_in, fan_out = _fans(tuple(shape), self.output_rank, self.filter_rank)
        return {"uniform": 1.0, "normal": 1.0, "truncated_normal": 1.0,
                "xavier": math.sqrt(3.0 / fan_in),
                "glorot_uniform": math.sqrt(6.0 / (fan_in + fan_out)),
                "glorot_normal": math.sqrt(2.0 / (fan_in + fan_out)),
                "he_uniform": math.sqrt(6.0 / fan_in),
                "he_normal": math.sqrt(2.0 / fan_in)}[self.kind] * self.scale

    def generate(self, shape, dtype=np.float32):
        gen = torch.Generator().manual_seed(self.seed) if self.seed is not None else None
        width = self._width(shape)
        t = torch.empty(tuple(shape), dtype=torch.float64)
        if self.kind in ("uniform", "xavier", "glorot_uniform", "he_uniform"):
            t.uniform_(-width, width, generator=gen)
        elif self.kind == "truncated_normal":
            torch.nn.init.trunc_normal_(t, 0.0, width, -2 * width, 2 * width, generator=gen)
        else:
            t.normal_(0.0, width, generator=gen)
        return t.numpy().astype(dtype)

    def __repr__(self):
        return "%s(scale=%g, output_rank=%d, filter_rank=%d)" % (self.kind, self.scale, self.output_rank,
                                                                 self.filter_rank)


class _Bilinear(object):
    """Bilinear upsampling kernel (for convolution_transpose), replicated over the leading axes."""

    def __init__(self, kernel_width, kernel_height):
        self.kernel_width, self.kernel_height = int(kernel_width), int(kernel_height)

    def generate(self, shape, dtype=np.float32):
        def profile(k):
            f = math.ceil(k / 2.0)
            c = (2 * f - 1 - f % 2) / (2.0 * f)
            return 1 - np.abs(np.arange(k) / f - c)
        if tuple(shape[-2:]) != (self.kernel_height, self.kernel_width):
            raise ValueError("bilinear: a %dx%d kernel does not fit a parameter of shape %s"
                             % (self.kernel_width, self.kernel_height, tuple(shape)))
        kernel = np.outer(profile(self.kernel_height), profile(self.kernel_width))
        out = np.zeros(shape, dtype=dtype)
        if len(shape) >= 4 and shape[0] == shape[1]:
            for c in range(shape[0]):
                out[c, c] = kernel
        else:
            out[...] = kernel
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
    """A copy of a random initializer with output_rank / filter_rank replaced."""
    if not isinstance(initializer, Initializer):
        raise TypeError("initializer_with_rank: expected a random initializer, got %r" % (initializer,))
    return initializer.with_rank(output_rank, filter_rank)


def truncated_normal(stdev, seed=None):
    """Gaussian with standard deviation stdev, redrawn outside two standard deviations."""
    return Initializer("truncated_normal", stdev, seed=seed)
