"""batch_normalization (running statistics kept in Constants, updated in place while training) and
local_response_normalization."""
import math
import warnings

import numpy as np
import torch
import torch.nn.functional as F

from ..core.registry import OutputSpec, register_op
from ._common import make, sanitize_operands


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


def _blend_factor(blend_time_constant, samples):
    """How much of the running statistics is mixed into the minibatch statistics while training."""
    if math.isinf(blend_time_constant):
        return 1.0
    return blend_time_constant / (blend_time_constant + samples)


def _batch_norm(x, scale, bias, mean, var, count, masks, n_dyn, spatial, time_constant, blend_time_constant,
                epsilon, training):
    static = tuple(x.shape[n_dyn:])
    view = ((-1,) + (1,) * (len(static) - 1)) if spatial else static
    if training:
        # the valid samples only: padding of shorter sequences must not enter the statistics
        samples = x[masks[0]] if masks[0] is not None else x.reshape((-1,) + static)
        n = samples.shape[0]
        dims = ((0,) + tuple(range(2, samples.dim()))) if spatial else (0,)
        batch_var, batch_mean = torch.var_mean(samples, dim=dims, unbiased=False)
        with torch.no_grad():
            reduced = samples.numel() // batch_mean.numel()
            factor = _smoothing_factor(time_constant, n, count)
            unbiased = batch_var.detach() * (reduced / max(reduced - 1, 1))
            mean.mul_(1 - factor).add_(factor * batch_mean.detach().reshape(mean.shape))
            var.mul_(1 - factor).add_(factor * unbiased.reshape(var.shape))
            count.add_(n)
        blend = _blend_factor(blend_time_constant, n)
        m = batch_mean.reshape(view) if blend == 0 else \
            (1 - blend) * batch_mean.reshape(view) + blend * mean.reshape(view)
        v = batch_var.reshape(view) if blend == 0 else \
            (1 - blend) * batch_var.reshape(view) + blend * var.reshape(view)
    else:
        m, v = mean.reshape(view), var.reshape(view)
    inv = torch.rsqrt(v + epsilon)
    return (x - m) * inv * scale.reshape(view) + bias.reshape(view)


def _batch_norm_prepare(node):
    a = node._attributes
    return {"n_dyn": node._inputs[0]._n_dynamic, "spatial": a["spatial"],
            "time_constant": a["normalization_time_constant"], "blend_time_constant": a["blend_time_constant"],
            "epsilon": a["epsilon"]}


def _float32_statistics_of_float16_data(first, other):
    """As CNTK 2.7: float16 data may be normalized with float32 scale, bias and statistics."""
    return first == np.float16 and other == np.float32


def _batch_norm_public(attrs, node):
    return {"spatial": attrs["spatial"], "normalizationTimeConstant": attrs["normalization_time_constant"],
            "blendTimeConstant": attrs["blend_time_constant"], "epsilon": attrs["epsilon"],
            "useCuDNNEngine": attrs.get("use_cudnn_engine", False),
            "disableRegularization": attrs.get("disable_regularization", False)}


register_op("BatchNormalization", _batch_norm_infer, _batch_norm, prepare=_batch_norm_prepare, uses_training=True,
            uses_masks=True, mixed_dtypes=_float32_statistics_of_float16_data, public_attributes=_batch_norm_public)


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
    if y.dim() == 2:
        y = y.unsqueeze(-1)
    # alpha applies to the mean of the squares over the window, in torch as in CNTK 2.7
    return F.local_response_norm(y, size, alpha, beta, k).reshape(x.shape)


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
    return make("LocalResponseNormalization", [x], {"depth_radius": int(depth_radius), "bias": float(bias),
                                                    "alpha": float(alpha), "beta": float(beta)}, name)
