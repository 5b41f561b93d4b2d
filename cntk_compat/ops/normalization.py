"""batch_normalization (running statistics kept in Constants, updated in place while training) and
local_response_normalization."""
import math
import sys
import warnings

import numpy as np
import torch
import torch.nn.functional as F

from ..core.registry import OutputSpec, register_op
from ._common import make, sanitize_operands
from ._engine_notes import warn_asymmetric
from ._packed_layout import packed_slots


def _batch_norm_infer(inputs, attributes):
    x = inputs[0]
    shape = x._shape
    if shape is not None and attributes["spatial"] and not shape:
        raise ValueError("batch_normalization: spatial normalization needs an operand with a channel axis")
    # spatial statistics need only the channel count; per-element statistics need the whole shape
    stat_shape = None if shape is None else shape[:1] if attributes["spatial"] else shape
    if stat_shape is not None and all(d >= 0 for d in stat_shape):
        for v in inputs[1:5]:
            if (v.is_parameter or v.is_constant) and v._shape is not None and any(d < 0 for d in v._shape):
                # as in CNTK, a statistic declared as a vector of inferred length (as the layer's are) stays a
                # vector: per-element statistics of a (4, 6, 6) operand have shape (144,)
                flat = len(v._shape) == 1 and len(stat_shape) > 1
                v._resolve_inferred_shape((int(np.prod(stat_shape)),) if flat else stat_shape)
    return [OutputSpec(x._shape, x._dtype, x._dynamic_axes)]


def _smoothing_factor(time_constant, samples, count):
    """How much of this minibatch goes into the running statistics (CNTK's exponential average factor)."""
    if time_constant < 0:  # corpus statistics: a plain running average over all samples seen
        return samples / (samples + count)
    first = torch.ones_like(count)
    if time_constant == 0:
        return first
    # the first minibatch sets the statistics, even with an infinite time constant (which then freezes them)
    later = 0.0 if math.isinf(time_constant) else 1.0 - math.exp(-samples / time_constant)
    return torch.where(count == 0, first, torch.full_like(count, later))


def _layout_gaps(mask):
    """The gaps of CNTK's packed layout of the minibatch's sequences (ops/_packed_layout.py)."""
    lengths = mask.sum(1).tolist()
    _, slots, steps = packed_slots(lengths)
    return slots * steps - sum(lengths)


def _statistics_with_gaps(samples, dims, gaps):
    """Mean and (biased) variance of the samples and ``gaps`` samples of zeros: CNTK 2.7 normalizes a minibatch
    of sequences with statistics over its packed layout, the gaps between sequences included as zeros."""
    valid = samples.numel() // math.prod(samples.shape[d] for d in range(samples.dim()) if d not in dims)
    total = valid * (samples.shape[0] + gaps) // samples.shape[0]
    mean = samples.sum(dim=dims) / total
    centred = samples - mean.reshape((1, -1) + (1,) * (samples.dim() - 2) if len(dims) > 1 else mean.shape)
    var = (centred.square().sum(dim=dims) + (total - valid) * mean.square()) / total
    return mean, var


def _batch_norm(x, scale, bias, mean, var, count, masks, n_dyn, spatial, time_constant, epsilon, training):
    """While training, the minibatch statistics normalize the minibatch whatever the blend time constant: CNTK 2.7's
    CPU kernel (the engine it falls back to from cuDNN when blending is asked for) never blends in the running
    statistics."""
    static = tuple(x.shape[n_dyn:])
    view = ((-1,) + (1,) * (len(static) - 1)) if spatial else static
    if training:
        # the valid samples only: padding of shorter sequences must not enter the statistics
        samples = x[masks[0]] if masks[0] is not None else x.reshape((-1,) + static)
        n = samples.shape[0]
        dims = ((0,) + tuple(range(2, samples.dim()))) if spatial else (0,)
        gaps = _layout_gaps(masks[0]) if masks[0] is not None else 0
        if gaps:
            batch_mean, batch_var = _statistics_with_gaps(samples, dims, gaps)
        else:
            batch_var, batch_mean = torch.var_mean(samples, dim=dims, unbiased=False)
        with torch.no_grad():
            reduced = samples.numel() // batch_mean.numel() * (n + gaps) // max(n, 1)
            factor = _smoothing_factor(time_constant, n, count)
            unbiased = batch_var.detach() * (reduced / max(reduced - 1, 1))
            mean.mul_(1 - factor).add_(factor * batch_mean.detach().reshape(mean.shape))
            var.mul_(1 - factor).add_(factor * unbiased.reshape(var.shape))
            count.add_(n)
        m, v = batch_mean.reshape(view), batch_var.reshape(view)
    else:
        m, v = mean.reshape(view), var.reshape(view)
    inv = torch.rsqrt(v + epsilon)
    return (x - m) * inv * scale.reshape(view) + bias.reshape(view)


def _cudnn_fallback_notice(node):
    """CNTK 2.7 says that cuDNN cannot blend statistics whenever it compiles a network holding a batch normalization
    meant for cuDNN with a blend time constant (but one using the running statistics alone, both time constants
    infinite)."""
    a = node._attributes
    if a.get("use_cudnn_engine") and a["blend_time_constant"] != 0 and \
            not (math.isinf(a["blend_time_constant"]) and math.isinf(a["normalization_time_constant"])):
        sys.stderr.write("\nWARNING: batch normalization falls back to cntk engine for parameters not supported by "
                         "cuDnn.\n")
        sys.stderr.flush()


def _batch_norm_prepare(node):
    a = node._attributes
    return {"n_dyn": node._inputs[0]._n_dynamic, "spatial": a["spatial"],
            "time_constant": a["normalization_time_constant"], "epsilon": a["epsilon"]}


def _float32_statistics_of_float16_data(first, other):
    """As CNTK 2.7: float16 data may be normalized with float32 scale, bias and statistics."""
    return first == np.float16 and other == np.float32


def _batch_norm_public(attrs, node):
    return {"spatial": attrs["spatial"], "normalizationTimeConstant": attrs["normalization_time_constant"],
            "blendTimeConstant": attrs["blend_time_constant"], "epsilon": attrs["epsilon"],
            "useCuDNNEngine": attrs.get("use_cudnn_engine", False),
            "disableRegularization": attrs.get("disable_regularization", False)}


register_op("BatchNormalization", _batch_norm_infer, _batch_norm, prepare=_batch_norm_prepare, uses_training=True,
            uses_masks=True, compile_notice=_cudnn_fallback_notice, mixed_dtypes=_float32_statistics_of_float16_data,
            public_attributes=_batch_norm_public)


def batch_normalization(operand, scale, bias, running_mean, running_inv_std, spatial, normalization_time_constant=5000,
                        blend_time_constant=0, epsilon=0.00001, use_cudnn_engine=False, disable_regularization=False,
                        name="", running_count=None):
    """Normalizes operand with the minibatch statistics while training (folding them into running_mean /
    running_inv_std, which holds the running variance, with time constant normalization_time_constant in samples;
    a negative time constant averages over all samples seen) and with the running statistics otherwise.
    spatial=True shares statistics over all but the leading (channel) axis."""
    from ..core.variables import Constant
    if running_count is None:
        warnings.warn("batch_normalization: pass running_count (e.g. constant(0)), the number of samples the "
                      "running statistics were computed from; a new zero count is used", Warning)
        running_count = Constant(0, shape=(), name="aggregate_count")
    x, s, b, m, v, c = sanitize_operands(operand, scale, bias, running_mean, running_inv_std, running_count,
                                         names=["operand", "scale", "bias", "running_mean", "running_inv_std",
                                                "running_count"])
    attrs = {"spatial": bool(spatial), "normalization_time_constant": float(normalization_time_constant),
             "blend_time_constant": float(blend_time_constant), "epsilon": float(epsilon),
             "disable_regularization": bool(disable_regularization), "use_cudnn_engine": bool(use_cudnn_engine)}
    return make("BatchNormalization", [x, s, b, m, v, c], attrs, name)


def _same_infer(inputs, attributes):
    x = inputs[0]
    return [OutputSpec(x._shape, x._dtype, x._dynamic_axes)]


def _lrn(x, n_dyn, size, alpha, beta, k):
    y = x.reshape((-1,) + tuple(x.shape[n_dyn:]))
    channels = y.shape[1]
    if size <= channels:
        # alpha applies to the mean of the squares over the window, in torch as in CNTK 2.7
        return F.local_response_norm(y, size, alpha, beta, k).reshape(x.shape)
    # CNTK 2.7 narrows a window wider than the channels to their count: channels c - (n - 1) // 2 to c + n // 2
    # (its convolution engine pads an even width asymmetrically, so says its MKL warning), alpha still over size
    width = channels
    squares = F.pad(y.square(), (0, 0, 0, 0, (width - 1) // 2, width // 2))
    window = sum(squares[:, i:i + channels] for i in range(width))
    out = y / (k + window * (alpha / size)).pow(beta)
    if width % 2 == 0:
        warn_asymmetric(out, y.new_zeros(()), y)
    return out.reshape(x.shape)


def _lrn_prepare(node):
    a = node._attributes
    return {"n_dyn": node._inputs[0]._n_dynamic, "size": 2 * a["depth_radius"] + 1, "alpha": a["alpha"],
            "beta": a["beta"], "k": a["bias"]}


register_op("LocalResponseNormalization", _same_infer, _lrn, prepare=_lrn_prepare,
            public_attributes=lambda attrs, node: {"depthRadius": attrs["depth_radius"], "bias": attrs["bias"],
                                                   "alpha": attrs["alpha"], "beta": attrs["beta"]})


def local_response_normalization(operand, depth_radius, bias, alpha, beta, name=""):
    """x / (bias + alpha / (2*depth_radius+1) * sum of x^2 over the 2*depth_radius+1 neighbouring channels)
    ** beta (channels beyond the edges count as 0), as CNTK 2.7 computes it."""
    (x,) = sanitize_operands(operand, names=["operand"])
    if x._shape is not None and len(x._shape) < 3:   # CNTK 2.7 reshapes the channel axis out of (C, H, W)
        raise ValueError("local_response_normalization: operand %r must have rank 3 (channels, height, width), got "
                         "shape %s" % (x, x._shape))
    if x._shape is not None and 0 < x._shape[0] < 2 * int(depth_radius) + 1:
        sys.stderr.write("Warning: LRN kernel size(%d) larger than channel size(%d) is unsupported, and is rounded "
                         "down to channel size. The output value is not affected." % (2 * int(depth_radius) + 1,
                                                                                      x._shape[0]))
        sys.stderr.flush()
    return make("LocalResponseNormalization", [x], {"depth_radius": int(depth_radius), "bias": float(bias),
                                                    "alpha": float(alpha), "beta": float(beta)}, name)
