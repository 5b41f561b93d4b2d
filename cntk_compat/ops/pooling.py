"""pooling and unpooling over the trailing axes of an operand (CNTK geometry, see _geometry)."""
import math

import torch
import torch.nn.functional as F

from ..core.registry import OutputSpec, register_op
from ._common import make, sanitize_operands
from ._geometry import axis_geometry, kernel_padding, option_tuple, per_axis, torch_pad_list

MAX_POOLING = 0
AVG_POOLING = 1
MAX_UNPOOLING = 0

_MAX = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}
_AVG = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}


def _window_options(attributes, x_shape):
    """(window, strides, auto_padding) for the pooled trailing axes of x_shape."""
    op_name = attributes["op_name"]
    window = attributes["window"]
    if window is None:  # global pooling: every axis but the leading (channel) axis
        window = tuple(x_shape[1:]) if len(x_shape) > 1 else tuple(x_shape)
    rank = len(window)
    if rank > len(x_shape):
        raise ValueError("%s: the window %s has more axes than the operand %s" % (op_name, window, x_shape))
    if not 1 <= rank <= 3:
        raise ValueError("%s: only windows over 1 to 3 axes are supported, got %s" % (op_name, window))
    if any(k < 1 for k in window):
        raise ValueError("%s: global pooling of an operand with free dimensions %s is not supported"
                         % (op_name, x_shape))
    strides = per_axis(attributes["strides"], rank, "strides", op_name)
    auto = per_axis(attributes["auto_padding"], rank, "auto_padding", op_name)
    return tuple(window), tuple(strides), tuple(auto)


def _window_geometry(spatial, window, strides, auto, ceil_out, pads=None):
    """Per pooled axis (out, lo, hi) for the actual sizes spatial (``pads``: explicit (lower, upper) pads per
    pooled axis, as CNTK's records of ONNX-imported pooling hold, which override auto padding)."""
    if pads is not None:
        return [axis_geometry(n, k, s, 1, a, lo, hi, ceil_out=ceil_out)
                for n, k, s, a, lo, hi in zip(spatial, window, strides, auto, pads[0], pads[1])]
    return [axis_geometry(n, k, s, 1, a, ceil_out=ceil_out) for n, k, s, a in zip(spatial, window, strides, auto)]


def _explicit_pads(attributes, rank):
    """(lower, upper) pads per pooled axis, or None without explicit pads."""
    lower, upper = attributes.get("lower_pad"), attributes.get("upper_pad")
    if not lower and not upper:
        return None
    op_name = attributes["op_name"]
    return (per_axis(lower or (0,), rank, "lower_pad", op_name), per_axis(upper or (0,), rank, "upper_pad", op_name))


def _pooling_infer(inputs, attributes):
    x = inputs[0]
    if x._shape is None:
        return [OutputSpec(None, x._dtype, x._dynamic_axes)]
    window, strides, auto = _window_options(attributes, x._shape)
    spatial = tuple(x._shape[len(x._shape) - len(window):])
    from .convolution import _check_kernel_fits
    _check_kernel_fits(window, spatial)
    geo = _window_geometry(spatial, window, strides, auto, attributes["ceil_out_dim"],
                           _explicit_pads(attributes, len(window)))
    for (out, _, _), n in zip(geo, spatial):
        if n >= 0 and out < 1:
            raise ValueError("%s: the window %s is larger than the (padded) operand %s"
                             % (attributes["op_name"], window, x._shape))
    lead = x._shape[:len(x._shape) - len(window)]
    return [OutputSpec(tuple(lead) + tuple(g[0] for g in geo), x._dtype, x._dynamic_axes)]


def _pool(x, pooling_type, window, strides, auto, ceil_out, include_pad, pads=None):
    """Pools the trailing len(window) axes of x; the geometry follows the actual sizes (free dimensions)."""
    rank = len(window)
    lead = tuple(x.shape[:x.dim() - rank])
    spatial = tuple(x.shape[x.dim() - rank:])
    geo = _window_geometry(spatial, window, strides, auto, ceil_out, pads)
    pads, padding = kernel_padding(spatial, window, strides, geo)
    if pads is None and any(2 * p > k for p, k in zip(padding, window)):  # more than torch's kernels pad
        pads, padding = torch_pad_list(padding, padding), 0
    x = x.reshape((-1, 1) + spatial)
    if pooling_type == MAX_POOLING:
        if pads is not None:
            x = F.pad(x, pads, value=-math.inf)
        y = _MAX[rank](x, window, strides, padding)
    elif pads is None:
        y = _AVG[rank](x, window, strides, padding, count_include_pad=include_pad)
    elif any(p > 0 for p in pads) and not include_pad:
        # the window's sum over its count of real values, rounded once (as CNTK 2.7 and torch's own kernels)
        ones = torch.ones((1, 1) + spatial, dtype=x.dtype, device=x.device)
        y = _window_sum(F.pad(x, pads), window, strides) / _window_sum(F.pad(ones, pads), window, strides)
    else:
        y = _AVG[rank](F.pad(x, pads), window, strides)
    return y.reshape(lead + tuple(y.shape[2:]))


def _window_sum(x, window, strides):
    if len(window) == 1:    # avg_pool1d has no divisor_override
        return F.avg_pool2d(x.unsqueeze(-2), (1,) + tuple(window), (1,) + tuple(strides), divisor_override=1)[..., 0, :]
    return _AVG[len(window)](x, window, strides, divisor_override=1)


def _pooling_prepare(node):
    a = node._attributes
    window, strides, auto = _window_options(a, node._inputs[0]._shape)
    return {"pooling_type": a["pooling_type"], "window": window, "strides": strides, "auto": auto,
            "ceil_out": a["ceil_out_dim"], "include_pad": a["include_pad"], "pads": _explicit_pads(a, len(window))}


def _pooling_public(attrs, node):
    window = attrs["window"]
    x_shape = node._inputs[0]._shape
    if window is None and x_shape is not None:  # global pooling: CNTK shows the window it inferred
        window = tuple(x_shape[1:]) if len(x_shape) > 1 else tuple(x_shape)
    return {"poolingType": attrs["pooling_type"], "poolingWindowShape": window, "strides": attrs["strides"],
            "autoPadding": list(attrs["auto_padding"]), "lowerPad": tuple(attrs.get("lower_pad") or (0,)),
            "upperPad": tuple(attrs.get("upper_pad") or (0,)), "ceilOutDim": attrs["ceil_out_dim"],
            "includePad": attrs["include_pad"]}


def _pooling_transform(node):
    """Output position p is the window whose centre lies at stride * p + (window - 1) // 2 - lower pad."""
    a, x = node._attributes, node._inputs[0]
    window, strides, auto = _window_options(a, x._shape)
    spatial = tuple(x._shape[len(x._shape) - len(window):])
    geo = _window_geometry(spatial, window, strides, auto, a["ceil_out_dim"], _explicit_pads(a, len(window)))
    return 0, [(s, (k - 1) // 2 - lo) for k, s, (_, lo, _) in zip(window, strides, geo)]


register_op("Pooling", _pooling_infer, _pool, prepare=_pooling_prepare, public_attributes=_pooling_public,
            spatial_transform=_pooling_transform)


def _check_type(op_name, pooling_type):
    if pooling_type not in (MAX_POOLING, AVG_POOLING):
        raise ValueError("%s: pooling_type must be MAX_POOLING or AVG_POOLING, got %r" % (op_name, pooling_type))


def pooling(operand, pooling_type, pooling_window_shape, strides=(1,), auto_padding=[False], ceil_out_dim=False,
            include_pad=False, name=""):
    """Max or average pooling of the trailing axes of operand with the given window (an empty or None window
    pools each channel globally); averages exclude padding unless include_pad."""
    _check_type("pooling", pooling_type)
    (x,) = sanitize_operands(operand, names=["operand"])
    window = None if pooling_window_shape is None or option_tuple(pooling_window_shape) in ((), (-2,)) else \
        tuple(int(d) for d in option_tuple(pooling_window_shape))
    attrs = {"op_name": "pooling", "pooling_type": int(pooling_type), "window": window,
             "strides": tuple(int(s) for s in option_tuple(strides)),
             "auto_padding": tuple(bool(p) for p in option_tuple(auto_padding)),
             "ceil_out_dim": bool(ceil_out_dim), "include_pad": bool(include_pad)}
    return make("Pooling", [x], attrs, name)


def _unpooling_infer(inputs, attributes):
    x, ref = inputs
    return [OutputSpec(ref._shape, x._dtype, x._dynamic_axes)]


def _unpooling_geometry(ref, window, strides, auto):
    """(spatial sizes, torch pad list) of the unpooling windows over ref's trailing axes."""
    spatial = tuple(ref.shape[ref.dim() - len(window):])
    geo = _window_geometry(spatial, window, strides, auto, False)
    return spatial, torch_pad_list([g[1] for g in geo], [g[2] for g in geo])


class _MaxUnpooling(torch.autograd.Function):
    """Each value of x goes where its window's maximum was in ref (the pooling input). The gradient is CNTK 2.7's:
    x's gradient is the maximum of the output gradient over each window (CNTK max-pools the incoming gradient,
    instead of reading it where the value went), and ref, which only places the values, gets none."""

    @staticmethod
    def forward(ctx, x, ref, window, strides, auto):
        spatial, pads = _unpooling_geometry(ref, window, strides, auto)
        full = ref.shape
        ref = ref.reshape((-1, 1) + spatial)
        if any(pads):
            ref = F.pad(ref, pads, value=-math.inf)
        _, idx = _MAX[len(window)](ref, window, strides, return_indices=True)
        flat = torch.zeros(ref.shape[0], 1, ref[0, 0].numel(), dtype=x.dtype, device=x.device)
        flat.scatter_(2, idx.reshape(idx.shape[0], 1, -1), x.reshape(idx.shape[0], 1, -1))
        y = flat.reshape(ref.shape)
        if any(pads):
            y = F.pad(y, [-p for p in pads])
        ctx.geometry = (tuple(x.shape), spatial, pads, window, strides)
        return y.reshape(full)

    @staticmethod
    def backward(ctx, grad):
        x_shape, spatial, pads, window, strides = ctx.geometry
        g = grad.reshape((-1, 1) + spatial)
        if any(pads):
            g = F.pad(g, pads, value=-math.inf)
        return _MAX[len(window)](g, window, strides).reshape(x_shape), None, None, None, None


def _unpool(x, ref, window, strides, auto):
    return _MaxUnpooling.apply(x, ref, window, strides, auto)


def _unpooling_prepare(node):
    window, strides, auto = _window_options(node._attributes, node._inputs[1]._shape)
    return {"window": window, "strides": strides, "auto": auto}


def _unpooling_public(attrs, node):
    return {"poolingType": MAX_UNPOOLING, "unpoolingWindowShape": attrs["window"], "strides": attrs["strides"],
            "autoPadding": list(attrs["auto_padding"]), "lowerPad": (0,), "upperPad": (0,)}


register_op("Unpooling", _unpooling_infer, _unpool, prepare=_unpooling_prepare, public_attributes=_unpooling_public)


def unpooling(operand, pooling_input, unpooling_type, unpooling_window_shape, strides=(1,), auto_padding=[False],
              name=""):
    """Max unpooling: each value of operand goes back to where the maximum of its window was in pooling_input."""
    if unpooling_type != MAX_UNPOOLING:
        raise ValueError("unpooling: only MAX_UNPOOLING is supported, got %r" % (unpooling_type,))
    x, ref = sanitize_operands(operand, pooling_input, names=["operand", "pooling_input"],
                               numpy_precision=False)
    attrs = {"op_name": "unpooling", "window": tuple(int(d) for d in option_tuple(unpooling_window_shape)),
             "strides": tuple(int(s) for s in option_tuple(strides)),
             "auto_padding": tuple(bool(p) for p in option_tuple(auto_padding)),
             "ceil_out_dim": False}
    return make("Unpooling", [x, ref], attrs, name)
