"""Random number ops: the samplers of cntk.random, random_sample and random_sample_inclusion_frequency.

Each random node owns its random state, CNTK's (rngSeed, rngOffset) pair (core.random_stream), so repeated
evaluations continue one stream of draws and checkpoints and saved models continue it exactly;
set_attribute('rngSeed', s) restarts it. The samplers of cntk.random draw CNTK 2.7's numbers from the node's
``std::mt19937_64`` engine (on the CPU, whatever the device), and so does random_sample.
"""
import math

import numpy as np
import torch

from ..core import cntk_rng
from ..core.cntk_rng import EngineStream
from ..core.dtypes import data_type_code, sanitize_dtype, to_torch_dtype
from ..core.function import Function
from ..core.registry import OutputSpec, register_op
from ..core.variables import sanitize_shape
from ._common import sanitize_operands
from ._packed_layout import packed_columns

SentinelValueForAutoSelectRandomSeed = cntk_rng.SentinelValueForAutoSelectRandomSeed


def resolve_seed(seed, op_name):
    """The seed a random node uses: the given one, or the next automatic seed (CNTK's counter, which random
    initializers share, so a dropout between two layers shifts the second layer's seed as in CNTK)."""
    if seed is None or int(seed) == SentinelValueForAutoSelectRandomSeed:
        return cntk_rng.generate_random_seed(per_worker_local_value=True)
    if int(seed) < 0:
        raise ValueError("%s: seed must be a non-negative int, got %r" % (op_name, seed))
    return int(seed)


def _draw(kind, random, shape, a, b, dtype):
    """CNTK 2.7's CPU samplers: the parameters rounded to the element type, the values computed in double
    precision from the node's mt19937_64 engine, then rounded (checked against CNTK 2.7 for all four kinds,
    float32 and float64, over consecutive evaluations)."""
    n = math.prod(shape)
    real = np.float64 if dtype == torch.float64 else np.float32
    a, b = float(real(a)), float(real(b))
    if kind == "normal":
        # Boost's normal_distribution<double>(mean, stddev); CNTK makes an even number of values
        values = random.cntk_draw(lambda engine: cntk_rng.unit_normals(engine, n + n % 2))[:n] * b + a
    elif kind == "bernoulli":
        # one draw of uniform_real<T>(0, 1) per value: 1 where it exceeds 1 - mean (CNTK's mask rule)
        values = (random.cntk_uniform(n, real) > real(1.0 - a)).astype(np.float64)
    elif kind == "uniform":
        values = random.cntk_draw(lambda engine: cntk_rng.uniform_double(engine, n, a, b))
    else:   # gumbel: loc - scale * log(-log1p(-u)), with the C library's log and log1p
        u = random.cntk_draw(lambda engine: cntk_rng.uniform_double(engine, n, 0.0, 1.0))
        values = np.array([a - b * math.log(-math.log1p(-x)) for x in u.tolist()], dtype=np.float64)
    return torch.from_numpy(np.asarray(values, dtype=np.float64).reshape(shape))


def _random(*like, kind, shape, a, b, random, dtype, device, masks=(None,)):
    if like:
        x, mask = like[0], masks[0]
        shape, dtype, device = tuple(x.shape), x.dtype, x.device
        if mask is not None and mask.dim() == 2:
            # over whole sequences CNTK draws its packed time-major layout, gaps included (ops/_packed_layout.py);
            # inside a recurrent loop (a step's mask) it draws each step's slots, which a step's batch matches
            columns, n = packed_columns(mask.cpu())
            drawn = _draw(kind, random, (n,) + shape[mask.dim():], a, b, dtype)
            out = drawn.new_zeros(shape)
            out[mask.cpu()] = drawn[columns]
            return out.to(device=device, dtype=dtype)
    return _draw(kind, random, shape, a, b, dtype).to(device=device, dtype=dtype)


def _random_prepare(node):
    from ..core.device import default_torch_device
    out = node._outputs[0]
    attrs = node._attributes
    return {"kind": attrs["kind"], "shape": tuple(out._shape), "a": attrs["a"], "b": attrs["b"],
            "dtype": to_torch_dtype(out._dtype), "device": default_torch_device()}


def _random_infer(inputs, attributes):
    if inputs:
        x = inputs[0]
        return [OutputSpec(x._shape, x._dtype, x._dynamic_axes, needs_gradient=False)]
    return [OutputSpec(attributes["shape"], attributes["dtype"], (), needs_gradient=False)]


def _random_public(attrs, node):
    """CNTK's RandomDistribution attributes (a bernoulli has its one argument, the mean); a sampler of a given
    shape adds that shape and its DataType code."""
    args = [attrs["a"]] if attrs["kind"] == "bernoulli" else [attrs["a"], attrs["b"]]
    public = {"randomDistributionType": attrs["kind"], "randomDistributionArgs": args, "rngSeed": attrs["rngSeed"],
              "rngOffset": attrs["rngOffset"]}
    if "shape" in attrs:
        public.update(newDataType=data_type_code(attrs["dtype"]), newShape=tuple(attrs["shape"]))
    return public


_OP_NAMES = {"uniform": "UniformRandom", "normal": "NormalRandom", "gumbel": "GumbelRandom",
             "bernoulli": "BernoulliRandom"}
for _name in _OP_NAMES.values():
    register_op(_name, _random_infer, _random, prepare=_random_prepare, uses_random=True,
                public_name="RandomDistribution", public_attributes=_random_public)
    register_op(_name + "Like", _random_infer, _random, prepare=_random_prepare, uses_random=True, uses_masks=True,
                stepwise=True,
                public_name="RandomDistribution", public_attributes=_random_public)


def _check_distribution(kind, a, b):
    """CNTK 2.7's refusals of a distribution's parameters (RuntimeErrors when the node is made)."""
    if kind == "uniform" and not a < b:
        raise RuntimeError("UniformRandom: low end of the range (%g) must be < high end of the range (%g)" % (a, b))
    if kind == "normal" and b < 0:
        raise RuntimeError("NormalRandom: standard deviation (%g) must be non-negative" % b)
    if kind == "bernoulli" and not 0 <= a <= 1:
        raise RuntimeError("BernoulliRandom: mean (%g) must be between 0 and 1" % a)


def random_op(kind, x, shape, dtype, a, b, seed, name):
    """A sampler node: from a shape and dtype (x None), or shaped like x."""
    op_name = _OP_NAMES[kind] + ("" if x is None else "Like")
    _check_distribution(kind, float(a), float(b))
    attributes = {"kind": kind, "a": float(a), "b": float(b), "rngSeed": resolve_seed(seed, op_name),
                  "rngOffset": 0}
    if x is None:
        attributes["shape"] = sanitize_shape(shape)
        if any(d < 0 for d in attributes["shape"]):
            raise ValueError("RandomDistribution: output shape %s must not have an unbound (free or inferred) "
                             "dimension" % (attributes["shape"],))
        attributes["dtype"] = sanitize_dtype(dtype) or np.dtype(np.float32)
        inputs = []
    else:
        inputs = sanitize_operands(x, names=["x"])
    return Function._composite(Function._primitive(op_name, inputs, attributes, name).outputs)


# -- random_sample / random_sample_inclusion_frequency --------------------------------------------

def _weights_infer(op_name):
    def infer(inputs, attributes):
        (w,) = inputs
        # CNTK 2.7 counts the classes along the weights' last axis and samples from their first row (the first
        # that many values): a row vector (1, N), CNTK's usual form of sampling weights, works like (N,)
        if w._shape is not None and len(w._shape) == 0:
            raise ValueError("%s: weights must have at least one axis, got a scalar" % op_name)
        classes = None if w._shape is None else w._shape[-1]
        n = attributes["num_samples"]
        if classes is not None and not attributes["allow_duplicates"] and n >= classes:
            raise ValueError("RandomSample/RandomSampleInclusionFrequency: For sampling without duplicates the "
                             "number of requested samples (%d) must be less than the number of classes (%d)."
                             % (n, classes))
        if op_name == "RandomSample":
            shape = None if classes is None else (n, classes)
            return [OutputSpec(shape, w._dtype, (), is_sparse=True, needs_gradient=False)]
        return [OutputSpec(w._shape, w._dtype, w._dynamic_axes, needs_gradient=False)]
    return infer


def _checked_probabilities(weights, op_name):
    w = weights.detach().to("cpu", torch.float64).reshape(-1)
    if bool((w < 0).any()):
        raise ValueError("%s: sampling weights must be non-negative" % op_name)
    total = float(w.sum())
    if total <= 0:
        raise ValueError("%s: the sampling weights sum to zero" % op_name)
    return w / total


def _std_uniform_classes(draws, prefix):
    """Classes as CNTK 2.7's RandomSample picks them from mt19937_64 ``draws``: a value of
    std::uniform_real_distribution<double>(0, total) (libstdc++: the draw / 2**64, kept below 1, times total),
    then the first class whose running weight sum reaches it (std::lower_bound)."""
    u = np.minimum(draws.astype(np.float64) / 18446744073709551616.0, np.nextafter(1.0, 0.0))
    return np.searchsorted(prefix, u * prefix[-1], side="left")


def _draw_classes(engine, prefix, num_samples, allow_duplicates):
    if allow_duplicates:
        return _std_uniform_classes(engine.take(num_samples), prefix)
    # without replacement CNTK draws again while a class comes up a second time (rejection)
    chosen, seen = [], set()
    while len(chosen) < num_samples:
        used = 0
        for idx in _std_uniform_classes(engine.peek(num_samples - len(chosen)), prefix).tolist():
            used += 1
            if idx not in seen:
                seen.add(idx)
                chosen.append(idx)
                if len(chosen) == num_samples:
                    break
        engine.skip(used)  # the draws looked at and not needed stay in the stream
    return np.asarray(chosen, dtype=np.int64)


def _first_row(weights):
    """The weights CNTK 2.7 samples from: the first weights.shape[-1] values."""
    return weights.reshape(-1)[:weights.shape[-1]] if weights.dim() > 1 else weights


def _random_sample(weights, num_samples, allow_duplicates, random):
    weights = _first_row(weights)
    p = _checked_probabilities(weights, "random_sample")
    if not allow_duplicates and int((p > 0).sum()) < num_samples:
        raise ValueError("random_sample: %d samples without replacement need at least as many classes with a "
                         "positive weight, got %d" % (num_samples, int((p > 0).sum())))
    # the running sums of the weights as CNTK forms them: each weight in its own precision, added in double
    prefix = np.cumsum(weights.detach().to("cpu").reshape(-1).numpy().astype(np.float64))
    idx = random.cntk_draw(lambda engine: _draw_classes(engine, prefix, num_samples, allow_duplicates))
    out = torch.zeros((num_samples, p.numel()), dtype=weights.dtype, device=weights.device)
    return out.scatter_(1, torch.as_tensor(idx, device=weights.device).unsqueeze(1), 1.0)


def _estimated_tries(prefix, num_samples, seed):
    """CNTK 2.7's estimate of how many draws with replacement give num_samples distinct classes: the mean
    count over 10 runs of its rejection sampler, from an engine seeded with the node's seed (CNTK computes the
    frequencies once, so every evaluation sees the same estimate)."""
    engine = EngineStream(seed)
    for _ in range(_TRIES_EXPERIMENTS):
        _draw_classes(engine, prefix, num_samples, False)
    return engine.position / float(_TRIES_EXPERIMENTS)


_TRIES_EXPERIMENTS = 10


def _inclusion_frequency(weights, num_samples, allow_duplicates, seed):
    op_name = "random_sample_inclusion_frequency"
    shape = weights.shape
    if len(shape) > 2 or (len(shape) == 2 and shape[0] != 1):
        # CNTK 2.7 builds the node but its result keeps only a (1, N) layout: evaluating it fails
        raise RuntimeError("RandomSampleInclusionFrequency: the output shape %s does not match the sample layout "
                           "(1, %d) CNTK computes; use weights of shape (%d,) or (1, %d)"
                           % (tuple(shape), shape[-1], shape[-1], shape[-1]))
    weights = _first_row(weights)
    p = _checked_probabilities(weights, op_name)
    if allow_duplicates:
        freq = num_samples * p
    else:
        if int((p > 0).sum()) < num_samples:
            raise ValueError("%s: %d samples without replacement need at least as many classes with a positive "
                             "weight, got %d" % (op_name, num_samples, int((p > 0).sum())))
        prefix = np.cumsum(weights.detach().to("cpu").reshape(-1).numpy().astype(np.float64))
        tries = _estimated_tries(prefix, num_samples, seed)
        # the chance that a class occurs at least once in that many draws
        freq = -torch.expm1(tries * torch.log1p(-p))
    return freq.to(device=weights.device, dtype=weights.dtype).reshape(shape)


def _inclusion_prepare(node):
    return dict(_sampling_prepare(node), seed=int(node._attributes["rngSeed"]))


def _sampling_prepare(node):
    return {"num_samples": node._attributes["num_samples"], "allow_duplicates": node._attributes["allow_duplicates"]}


def _sampling_public(attrs, node):
    return {"numSamples": attrs["num_samples"], "allowDuplicates": attrs["allow_duplicates"],
            "rngSeed": attrs["rngSeed"], "rngOffset": attrs["rngOffset"]}


register_op("RandomSample", _weights_infer("RandomSample"), _random_sample, prepare=_sampling_prepare,
            uses_random=True, public_attributes=_sampling_public)
register_op("RandomSampleInclusionFrequency", _weights_infer("RandomSampleInclusionFrequency"),
            _inclusion_frequency, prepare=_inclusion_prepare, public_attributes=_sampling_public)


def _sampling_op(op_name, weights, num_samples, allow_duplicates, seed, name):
    (weights,) = sanitize_operands(weights, names=["weights"])
    if int(num_samples) < 1:
        raise ValueError("%s: num_samples must be positive, got %r" % (op_name, num_samples))
    attributes = {"num_samples": int(num_samples), "allow_duplicates": bool(allow_duplicates),
                  "rngSeed": resolve_seed(seed, op_name), "rngOffset": 0}
    return Function._composite(Function._primitive(op_name, [weights], attributes, name).outputs)


def random_sample(weights, num_samples, allow_duplicates, seed=SentinelValueForAutoSelectRandomSeed, name=""):
    """num_samples classes drawn with probabilities weights / sum(weights), as a (num_samples, len(weights))
    one-hot matrix without dynamic axes; a new set of samples on every evaluation."""
    return _sampling_op("RandomSample", weights, num_samples, allow_duplicates, seed, name)


def random_sample_inclusion_frequency(weights, num_samples, allow_duplicates,
                                      seed=SentinelValueForAutoSelectRandomSeed, name=""):
    """The expected number of times each class occurs in random_sample(weights, num_samples, allow_duplicates);
    without replacement CNTK's estimate, which depends on the seed: the chance that a class occurs in as many
    draws with replacement as its sampler needed on average over 10 runs."""
    return _sampling_op("RandomSampleInclusionFrequency", weights, num_samples, allow_duplicates, seed, name)
