"""convolution(..., sequential=True): the sequence axis is the first spatial axis of the convolution.

Kernel (O, C/groups, k_seq, *k), operand (*map axes, C, *spatial) on a sequence axis, with len(k) == len(spatial).
The static spatial axes follow CNTK's geometry (_geometry.axis_geometry). Along the sequence axis each sequence
has its own length, so one stride-1 convolution computes the window centred at every step and each sequence then
keeps the centres CNTK's geometry picks (a gather). CNTK convolves the batch padded to its longest sequence, so
the centres are the longest sequence's -- with padding the first is ``extra // 2`` where ``extra`` is what its
output's centres leave over, without padding the first window starts at the first step, exactly as for a static
axis -- and each sequence keeps as many as its own length gives. Steps past a
sequence's end are zeros (CNTK pads sequences with zeros). The result lies on a new sequence axis unless every
sequence keeps its length (padding with stride 1).
"""
import math

import numpy as np
import torch
import torch.nn.functional as F

from ..core.axis import Axis
from ..core.device import copy_to
from ..core.dtypes import promote
from ..core.native_errors import announced
from ..core.registry import OutputSpec, register_op
from ._common import make
from ._engine_notes import asymmetric_padding, warn_asymmetric
from ._geometry import axis_geometry, torch_pad_list
from ..core.sequence_masks import expand_mask, gather_steps, host_lengths_record, host_mask
from .sequence._select import with_sequence_axis

_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def _split(w_shape, x_shape, op_name):
    """(map axes, in_channels, spatial shape of x, kernel shape (sequence axis first))."""
    k_shape = tuple(w_shape[2:])
    n_spatial = len(k_shape) - 1
    if len(w_shape) < 3 or len(x_shape) < n_spatial + 1:
        raise ValueError("%s: a kernel of shape %s does not fit a sequence of items of shape %s; expected kernel "
                         "(out_channels, in_channels, k_sequence, *filter) and items (in_channels, *spatial) with "
                         "one spatial item axis per filter axis after the first" % (op_name, w_shape, x_shape))
    lead = tuple(x_shape[:len(x_shape) - n_spatial - 1])
    return lead, x_shape[len(lead)], tuple(x_shape[len(lead) + 1:]), k_shape


def _static_geometry(attributes, spatial, k_shape):
    return [axis_geometry(n, k, s, d, a) for n, k, s, d, a in
            zip(spatial, k_shape[1:], attributes["strides"][1:], attributes["dilation"][1:],
                attributes["auto_padding"][1:])]


def _infer(inputs, attributes):
    w, x = inputs
    dtype = promote(w._dtype, x._dtype)
    op_name = attributes["op_name"]
    if x._sequence_axis is None and x._dynamic_axes is not None:
        raise ValueError("%s: sequential=True needs an operand with a sequence axis" % op_name)
    new_axes = x._dynamic_axes if attributes["new_axis"] is None else with_sequence_axis(x, attributes["new_axis"])
    if w._shape is None or x._shape is None:
        return [OutputSpec(None, dtype, new_axes)]
    lead, in_c, spatial, k_shape = _split(w._shape, x._shape, op_name)
    groups = attributes["groups"]
    if in_c % groups:
        raise ValueError("%s: %d input channels are not divisible into %d groups" % (op_name, in_c, groups))
    if (w.is_parameter or w.is_constant) and w._shape[1] == -1:
        w._resolve_inferred_shape((w._shape[0], in_c // groups) + k_shape)
    out = []
    for (o, _, _), n in zip(_static_geometry(attributes, spatial, k_shape), spatial):
        if o < 1:
            raise ValueError("%s: the filter %s is larger than the (padded) item shape %s" % (op_name, k_shape[1:],
                                                                                           spatial))
        out.append(o)
    return [OutputSpec(lead + (w._shape[0],) + tuple(out), dtype, new_axes)]


def _sequence_centres(lengths, k, stride, dilation, auto_pad):
    """(first centre, per sequence the number of outputs) along the sequence axis, from the host's lengths (numpy
    int64). CNTK convolves the batch's sequences padded with zeros to the longest one's length, so every sequence's
    centres are the longest sequence's (from the first that length's geometry picks: without padding the first
    window starts at the first step); each keeps as many as its own length gives."""
    extent = (k - 1) * dilation + 1

    def counts(n):
        return np.maximum((n - 1) // stride + 1 if auto_pad else (n - extent) // stride + 1, 0)
    count = counts(lengths)
    if not auto_pad:  # the first window starts at the first step
        return (extent - 1) // 2, count
    longest = int(lengths.max()) if lengths.size else 0
    extra = longest - ((int(counts(longest)) - 1) * stride + 1)
    return max(extra, 0) // 2, count


def _sequential_convolution(w, x, mask, n_lead, pads, seq_k, seq_stride, seq_dilation, seq_auto, strides, dilation,
                            groups, static_asymmetric=False, windowed=False):
    b, t = x.shape[:2]
    # the geometry along the sequence axis is worked out from the lengths the host knows (no wait for a device)
    lengths = host_lengths_record(mask).array
    longest = int(lengths.max()) if lengths.size else 0   # CNTK convolves the batch padded to its longest sequence
    if 0 < longest < seq_k:
        raise announced(ValueError, "Convolution operation requires that kernel dim %d <= input dim %d.\n\n"
                        "(cntk-compat: the sequential convolution's kernel along the sequence axis is longer than the "
                        "minibatch's longest sequence)" % (seq_k, longest))
    first, count = _sequence_centres(lengths, seq_k, seq_stride, seq_dilation, seq_auto)
    items = x.shape[2:]
    n_spatial = len(strides) - 1
    x = torch.where(expand_mask(mask, x), x, torch.zeros_like(x))
    lead = tuple(items[:n_lead])
    x = x.reshape((b, t, math.prod(lead)) + tuple(items[n_lead:]))
    x = x.movedim(1, 3).flatten(0, 1)  # (B * map, C, T, *spatial)
    extent = (seq_k - 1) * seq_dilation + 1
    left = (extent - 1) // 2
    x = F.pad(x, pads + [left, extent - 1 - left])
    y = _CONV[n_spatial + 1](x, w, None, (1,) + tuple(strides[1:]), 0, tuple(dilation), groups)
    if static_asymmetric or not windowed and asymmetric_padding([(seq_stride, seq_dilation, seq_auto, 0, 0)],
                                               [axis_geometry(longest, seq_k, seq_stride, seq_dilation, seq_auto)]):
        warn_asymmetric(y, w, x)
    if ((count == 0) & (lengths > 0)).any():   # CNTK's minibatch layout holds no empty sequence
        raise announced(RuntimeError, ("AddSequence: Sequences must be a least one frame long." if windowed else
                                       "The first entry of a Value mask must be Valid or SequenceBegin") +
                        "\n\n(cntk-compat: the sequential convolution leaves a sequence of the minibatch without any "
                        "output step)")
    y = y.reshape((b, -1) + tuple(y.shape[1:])).movedim(3, 1)  # (B, T, map, O, *spatial out)
    new_t = int(count.max()) if count.size else 0
    centres = copy_to(torch.from_numpy(first + np.arange(new_t, dtype=np.int64) * seq_stride), y.device)
    y = gather_steps(y, centres[None, :].expand(b, -1))
    new_mask = host_mask(count, new_t, y.device)
    y = torch.where(expand_mask(new_mask, y), y, torch.zeros_like(y))
    return y.reshape((b, new_t) + lead + tuple(y.shape[3:])), new_mask


def _prepare(node):
    w, x = node._inputs
    a = node._attributes
    lead, _, spatial, k_shape = _split(w._shape, x._shape, a["op_name"])
    geo = _static_geometry(a, spatial, k_shape)
    return {"n_lead": len(lead), "pads": torch_pad_list([g[1] for g in geo], [g[2] for g in geo]),
            "seq_k": k_shape[0], "seq_stride": a["strides"][0], "seq_dilation": a["dilation"][0],
            "seq_auto": a["auto_padding"][0], "strides": a["strides"], "dilation": a["dilation"],
            "groups": a["groups"], "windowed": a.get("windowed", False), "static_asymmetric": asymmetric_padding(
                [(s, d, p, 0, 0) for s, d, p in zip(a["strides"][1:], a["dilation"][1:], a["auto_padding"][1:])],
                geo)}


register_op("SequentialConvolution", _infer, _sequential_convolution, prepare=_prepare, uses_mask=True,
            makes_mask=True)


def windowed_convolution(w, x, strides, auto_padding, dilation, groups):
    """Convolution(sequential=True)'s convolution along the sequence axis: CNTK 2.7's layer convolves a window of
    the sequence's steps spliced along a static axis, so its engine sees no padding along the sequence (what it
    says on stderr, and how it refuses a sequence left without outputs, differ from the sequential op's)."""
    attrs = sequential_attributes(len(w.shape) - 2, strides, auto_padding, dilation, groups)
    attrs["windowed"] = True
    return make("SequentialConvolution", [w, x], attrs, "")


def sequential_attributes(filter_rank, strides, auto_padding, dilation, groups):
    """The op's attributes from per-axis options given for the trailing filter_rank axes (sequence axis first)."""
    from ._geometry import per_axis
    strides = per_axis(strides, filter_rank, "strides", "convolution")
    auto_padding = per_axis(tuple(bool(p) for p in auto_padding) if isinstance(auto_padding, (tuple, list))
                            else bool(auto_padding), filter_rank, "auto_padding", "convolution")
    dilation = per_axis(dilation, filter_rank, "dilation", "convolution")
    keeps_lengths = auto_padding[0] and strides[0] == 1
    return {"op_name": "convolution", "strides": tuple(int(s) for s in strides), "auto_padding": auto_padding,
            "dilation": tuple(int(d) for d in dilation), "groups": int(groups),
            "new_axis": None if keeps_lengths else Axis.new_unique_dynamic_axis("convolutionSequenceAxis")}
