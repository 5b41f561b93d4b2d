"""batch_normalization (running statistics kept in Constants, updated in place while training) and
local_response_normalization."""
import math

import torch
import torch.nn.functional as F

from ..core.registry import OutputSpec, register_op
from ._common import make, sanitize_operands


def _batch_norm_infer(inputs, attributes):
    x = inputs[0]
    if x._shape is not None and all(d >= 0 for d in x._shape):
        if attributes["spatial"] and not x._shape:
            raise ValueError("batch_normalization: spatial normalization needs an operand with a channel axis")
        stat_shape = x._shape[:1] if attributes["spatial"] else x._shape
        for v in inputs[1:5]:
            if (v.is_parameter or v.is_constant) and v._shape is not None and any(d == -1 for d in v._shape):
                v._shape = tuple(stat_shape) if len(v._shape) != len(stat_shape) else v._shape
                v._resolve_inferred_shape(stat_shape)
    return [OutputSpec(x._shape, x._dtype, x._dynamic_axes)]


def _batch_norm(x, scale, bias, mean, var, count, n_dyn, spatial, time_constant, epsilon, training):
    rank = x.dim() - n_dyn
    if spatial:
        view = (-1,) + (1,) * (rank - 1)
        dims = tuple(range(n_dyn)) + tuple(range(n_dyn + 1, x.dim()))
    else:
        view = tuple(x.shape[n_dyn:])
        dims = tuple(range(n_dyn))
    if training:
        batch_var, batch_mean = torch.var_mean(x, dim=dims, unbiased=False)
        with torch.no_grad():
            n = x.numel() // batch_mean.numel()
            smoothing = 1.0 if time_constant == 0 else \
                0.0 if math.isinf(time_constant) else 1.0 - math.exp(-n / time_constant)
            factor = torch.where(count == 0, torch.ones_like(count), torch.full_like(count, smoothing))
            mean.mul_(1 - factor).add_(factor * batch_mean.detach().reshape(mean.shape))
            var.mul_(1 - factor).add_(factor * batch_var.detach().reshape(var.shape) * (n / max(n - 1, 1)))
            count.add_(n)
        m, v = batch_mean, batch_var
    else:
        m, v = mean, var
    inv = torch.rsqrt(v.reshape(view) + epsilon)
    return (x - m.reshape(view)) * inv * scale.reshape(view) + bias.reshape(view)


def _batch_norm_prepare(node):
    a = node._attributes
    return {"n_dyn": node._inputs[0]._n_dynamic, "spatial": a["spatial"],
            "time_constant": a["normalization_time_constant"], "epsilon": a["epsilon"]}


register_op("BatchNormalization", _batch_norm_infer, _batch_norm, prepare=_batch_norm_prepare, uses_training=True)


def batch_normalization(operand, scale, bias, running_mean, running_inv_std, spatial, normalization_time_constant=5000,
                        blend_time_constant=0, epsilon=0.00001, use_cudnn_engine=False, disable_regularization=False,
                        name="", running_count=None):
    """Normalizes operand with the minibatch statistics while training (folding them into running_mean /
    running_inv_std, which holds the running variance, with time constant normalization_time_constant in samples)
    and with the running statistics otherwise. spatial=True shares statistics over all but the leading axis."""
    from ..core.variables import Constant
    if running_count is None:
        running_count = Constant(0, shape=(), name="aggregate_count")
    x, s, b, m, v, c = sanitize_operands(operand, scale, bias, running_mean, running_inv_std, running_count,
                                         names=["operand", "scale", "bias", "running_mean", "running_inv_std",
                                                "running_count"])
    attrs = {"spatial": bool(spatial), "normalization_time_constant": float(normalization_time_constant),
             "blend_time_constant": float(blend_time_constant), "epsilon": float(epsilon),
             "disable_regularization": bool(disable_regularization)}
    return make("BatchNormalization", [x, s, b, m, v, c], attrs, name)


def _same_infer(inputs, attributes):
    x = inputs[0]
    return [OutputSpec(x._shape, x._dtype, x._dynamic_axes)]


def _lrn(x, n_dyn, size, alpha, beta, k):
    y = x.reshape((-1,) + tuple(x.shape[n_dyn:]))
    if y.dim() == 2:
        y = y.unsqueeze(-1)
    # torch divides alpha by the window size; CNTK does not
    return F.local_response_norm(y, size, alpha * size, beta, k).reshape(x.shape)


def _lrn_prepare(node):
    a = node._attributes
    return {"n_dyn": node._inputs[0]._n_dynamic, "size": 2 * a["depth_radius"] + 1, "alpha": a["alpha"],
            "beta": a["beta"], "k": a["bias"]}


register_op("LocalResponseNormalization", _same_infer, _lrn, prepare=_lrn_prepare)


def local_response_normalization(operand, depth_radius, bias, alpha, beta, name=""):
    """x / (bias + alpha * sum of x^2 over the 2*depth_radius+1 neighbouring channels) ** beta."""
    (x,) = sanitize_operands(operand, names=["operand"])
    return make("LocalResponseNormalization", [x], {"depth_radius": int(depth_radius), "bias": float(bias),
                                                    "alpha": float(alpha), "beta": float(beta)}, name)
