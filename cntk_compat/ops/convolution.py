"""convolution and convolution_transpose (CNTK layout: kernel (O, C, *k), operand (C, *spatial))."""
import torch
import torch.nn.functional as F

from ..core.dtypes import promote
from ..core.function import Function
from ..core.native_errors import RuntimeValueError, announced
from ..core.registry import OutputSpec, register_op
from ..core.variables import shape_text
from ._common import make, sanitize_operands
from ._engine_notes import asymmetric_padding, warn_asymmetric
from ._geometry import axis_geometry, kernel_padding, option_tuple, per_axis, torch_pad_list
from .sequential_convolution import sequential_attributes

_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
_CONV_T = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


def _split(w_shape, x_shape, reduction_rank, op_name):
    """(out_channels, in_channels, kernel spatial shape, input spatial shape) of a kernel/operand pair. A kernel
    without an output channel axis (as many axes as the operand) has one output channel."""
    if reduction_rank == 1:
        if len(x_shape) < 2 or len(w_shape) not in (len(x_shape), len(x_shape) + 1):
            raise ValueError("%s: a kernel of shape %s does not fit an operand of shape %s; expected kernel "
                             "([out_channels,] in_channels, *filter) and operand (in_channels, *spatial) with 1 to 3 "
                             "spatial axes" % (op_name, w_shape, x_shape))
        if len(w_shape) == len(x_shape):
            return 1, x_shape[0], tuple(w_shape[1:]), tuple(x_shape[1:])
        return w_shape[0], x_shape[0], tuple(w_shape[2:]), tuple(x_shape[1:])
    if len(w_shape) == len(x_shape) + 2 and w_shape[1] in (1, -1):
        return w_shape[0], 1, tuple(w_shape[2:]), tuple(x_shape)
    if len(w_shape) == len(x_shape):
        return 1, 1, tuple(w_shape), tuple(x_shape)
    if len(w_shape) != len(x_shape) + 1:
        raise ValueError("%s: with reduction_rank=0 a kernel of shape %s does not fit an operand of shape %s; "
                         "expected kernel ([out_channels,] *filter) and operand (*spatial)" % (op_name, w_shape, x_shape))
    return w_shape[0], 1, tuple(w_shape[1:]), tuple(x_shape)


def _kernel_channels(w_shape, k_shape):
    """The kernel's input-channel dimension (the axis before its spatial ones)."""
    return w_shape[len(w_shape) - len(k_shape) - 1]


def _axis_options(attributes, rank):
    """Per spatial axis: (stride, dilation, auto_padding, lower_pad, upper_pad)."""
    rr = attributes["reduction_rank"]
    full = rank + rr
    op_name = attributes["op_name"]
    return list(zip(*(per_axis(attributes[k] or (0,), full, k, op_name)[rr:]
                      for k in ("strides", "dilation", "auto_padding", "lower_pad", "upper_pad"))))


def _geometry(attributes, k_shape, spatial):
    return [axis_geometry(n, k, s, d, a, lo, hi)
            for n, k, (s, d, a, lo, hi) in zip(spatial, k_shape, _axis_options(attributes, len(k_shape)))]


def _resolve_kernel(w, shape):
    if (w.is_parameter or w.is_constant) and any(d == -1 for d in w._shape):
        w._resolve_inferred_shape(shape)


def _when_shapes_known(infer_shape):
    """An infer rule that answers an unknown shape until both the kernel's and the operand's shapes are known;
    then infer_shape(w, x, dtype, attributes) decides."""
    def infer(inputs, attributes):
        w, x = inputs
        dtype = promote(w._dtype, x._dtype)
        if w._shape is None or x._shape is None:
            return [OutputSpec(None, dtype, x._dynamic_axes)]
        return infer_shape(w, x, dtype, attributes)
    return infer


def _check_kernel_fits(k_shape, spatial, note=""):
    """CNTK 2.7 refuses a kernel (or pooling window) larger than the operand along an axis, padding or not (the
    axes in its order: the last first)."""
    for k, n in reversed(list(zip(k_shape, spatial))):
        if n >= 0 and k > n:
            raise announced(ValueError, "Convolution operation requires that kernel dim %d <= input dim %d.%s"
                            % (k, n, note))


@_when_shapes_known
def _convolution_infer(w, x, dtype, attributes):
    op_name = attributes["op_name"]
    rr, groups = attributes["reduction_rank"], attributes["groups"]
    out_c, in_c, k_shape, spatial = _split(w._shape, x._shape, rr, op_name)
    if not 1 <= len(k_shape) <= 3:
        raise ValueError("%s: only 1 to 3 spatial axes are supported, got kernel %s" % (op_name, w._shape))
    if rr == 1 and in_c >= 0:
        if _kernel_channels(w._shape, k_shape) == -1:
            _fix_inferred_channel_options(attributes, len(k_shape))
        kc = _kernel_channels(w._shape, k_shape)
        if groups > 1 and (in_c % groups if kc < 0 else kc * groups != in_c):
            raise announced(RuntimeValueError, "groups: number of input channels (C) must be equal to number of input "
                            "kernel channels (kC) * groups (G).\n\n(cntk-compat: %s: %d input channels, kernel %s, "
                            "%d groups)" % (op_name, in_c, shape_text(w._shape), groups))
        if out_c % groups:
            raise announced(RuntimeValueError, "groups: number of output channels must be divisble by groups.\n\n"
                            "(cntk-compat: %s: %d output channels, %d groups)" % (op_name, out_c, groups))
        _resolve_kernel(w, tuple(w._shape[:len(w._shape) - len(k_shape) - 1]) + (in_c // groups,) + k_shape)
    elif rr == 0:
        _resolve_kernel(w, tuple(d if d != -1 else 1 for d in w._shape))
    if rr == 1:     # the channel axis too (the last in CNTK's order): a kernel of the operand's rank can exceed it
        _check_kernel_fits((_kernel_channels(w._shape, k_shape),) + k_shape, (in_c,) + spatial)
    else:
        _check_kernel_fits(k_shape, spatial)
    out = []
    for (o, _, _), n in zip(_geometry(attributes, k_shape, spatial), spatial):
        if n >= 0 and o < 1:
            raise ValueError("%s: the filter %s is larger than the (padded) operand %s" % (op_name, k_shape, spatial))
        out.append(o)
    if rr == 1:
        out_c *= _channel_outputs(w._shape, in_c, k_shape, attributes)
    return [OutputSpec((out_c,) + tuple(out), dtype, x._dynamic_axes)]


def _fix_inferred_channel_options(attributes, rank):
    """The kernel's input channels are inferred (-1) from the operand: as CNTK 2.7 does then, the node's per-axis
    options are written out for every axis, with stride 1 and no padding along the channel axis (so the kernel
    spans it once), also when the options were given for fewer axes."""
    full, op_name = rank + 1, attributes["op_name"]
    attributes["strides"] = (1,) + per_axis(attributes["strides"], full, "strides", op_name)[1:]
    attributes["auto_padding"] = (False,) + per_axis(attributes["auto_padding"], full, "auto_padding", op_name)[1:]


def _channel_options(attributes, rank):
    """(stride, auto_padding) of the channel axis (reduction_rank 1): CNTK's per-axis options cover it too."""
    full, op_name = rank + 1, attributes["op_name"]
    padded = per_axis(attributes["auto_padding"], full, "auto_padding", op_name)[0]
    explicit = attributes["lower_pad"] is not None or attributes["upper_pad"] is not None
    return per_axis(attributes["strides"], full, "strides", op_name)[0], padded and not explicit


def _channel_outputs(w_shape, in_c, k_shape, attributes):
    """How many positions the kernel takes along the operand's channel axis. CNTK convolves along that axis like
    along the others: a kernel spanning all channels without padding reduces it to one position (the usual
    case, which layers ask for with auto_padding False on it), while auto padding there (the op's default
    auto_padding=[True]) keeps ceil(channels / stride) positions, each a block of the output's first axis
    (O x positions); so does a kernel narrower than the channels. With groups the channel axis is only padded."""
    kc = _kernel_channels(w_shape, k_shape)
    if in_c < 0 or kc < 0:
        return 1
    stride, padded = _channel_options(attributes, len(k_shape))
    if attributes["groups"] > 1 and not padded:
        return 1
    return axis_geometry(in_c, kc, stride, 1, padded)[0]


def _convolution(w, x, n_dyn, in_c, kernel_shape, options, groups, channel_axis=False, no_backward=None):
    """x (*dynamic, [C,] *spatial): the geometry is computed from the actual sizes (free dimensions).
    channel_axis: the kernel (O, 1, kc, *filter) moves along the channel axis too, as along a spatial axis.
    no_backward: the RuntimeError message with which CNTK refuses to differentiate it (None: it does)."""
    rank = len(options)
    lead = tuple(x.shape[:n_dyn])
    spatial = tuple(x.shape[x.dim() - rank:])
    geo = [axis_geometry(n, k, s, d, a, lo, hi)
           for n, k, (s, d, a, lo, hi) in zip(spatial, kernel_shape[2:], options)]
    x = x.reshape((-1, in_c) + spatial)
    if w.dtype != x.dtype:  # e.g. a float32 constant kernel over float64 data: the promoted type, as inferred
        dtype = torch.promote_types(w.dtype, x.dtype)
        w, x = w.to(dtype), x.to(dtype)
    strides = tuple(o[0] for o in options)
    dilation = tuple(o[1] for o in options)
    if channel_axis:
        y = _along_channels(x, w.reshape(kernel_shape), geo, strides, dilation)
        if no_backward and y.requires_grad:
            y.register_hook(lambda grad: _refuse(no_backward))
    else:
        pads, padding = kernel_padding(spatial, [(k - 1) * d + 1 for k, d in zip(kernel_shape[2:], dilation)],
                                       strides, geo)
        if pads is not None:
            x = F.pad(x, pads)
        y = _CONV[rank](x, w.reshape(kernel_shape), None, strides, padding, dilation, groups)
    if asymmetric_padding(options, geo):
        warn_asymmetric(y, w, x)
    return y.reshape(lead + tuple(y.shape[1:]))


def _refuse(message):
    raise announced(RuntimeError, message)


def _along_channels(x, w, geo, strides, dilation):
    """x (N, 1, C, *spatial), w (O, 1, kc, *filter): the kernel's positions along the (padded) channel axis become a
    batch of ordinary convolutions; the output's channel axis holds O x positions (the kernel's map the outer)."""
    x = F.pad(x, torch_pad_list([g[1] for g in geo], [g[2] for g in geo]))[:, 0]
    kc = w.shape[2]
    windows = x.unfold(1, kc, strides[0])                     # (N, positions, *spatial, kc)
    n, positions = windows.shape[:2]
    windows = windows.movedim(-1, 2).reshape((n * positions, kc) + tuple(windows.shape[2:-1]))
    y = _CONV[len(strides) - 1](windows, w[:, 0], None, strides[1:], 0, dilation[1:])
    y = y.reshape((n, positions) + tuple(y.shape[1:])).transpose(1, 2)
    return y.reshape((n, -1) + tuple(y.shape[3:]))


def _refuse_unshared(node):
    """CNTK 2.7 builds a convolution whose kernel is not shared (sharing False) and refuses it when it first computes
    it."""
    w = node._inputs[0]
    if not all(node._attributes.get("sharing", (True,))):
        raise announced(RuntimeError, "Convolution weight matrix %s should have dimension [(filter shape) x (input "
                        "channels) x (output channels)]\n\n(cntk-compat: '%s' has sharing=%s; only shared kernels are "
                        "computed)" % (w.uid, node.name or node.uid, list(node._attributes["sharing"])))


def _convolution_prepare(node):
    _refuse_unshared(node)
    w, x = node._inputs
    a = node._attributes
    out_c, in_c, k_shape, _ = _split(w._shape, x._shape, a["reduction_rank"], a["op_name"])
    kc, groups = _kernel_channels(w._shape, k_shape), a["groups"]
    if in_c < 0:  # a free or inferred channel dimension: the kernel knows it
        in_c = kc * groups
    options = _axis_options(a, len(k_shape))
    stride, padded = _channel_options(a, len(k_shape))
    rr = a["reduction_rank"]
    # the kernel moves along the channel axis (narrower than it, or padded along it)
    positions = _channel_outputs(w._shape, in_c, k_shape, a) if rr == 1 else 1
    moving = rr == 1 and (positions > 1 or kc * groups != in_c)
    if rr == 1:
        _refuse_channel_kernel(node, w, x, out_c, in_c, kc, k_shape, options, stride, padded, groups, positions,
                               moving)
    if moving:
        # CNTK 2.7 places a kernel with several output maps (taking one position along the channels, the only
        # case it computes) without regard to the padding there. It differentiates a kernel narrower than the
        # channels only where its MKL engine computes it (one position, one spatial axis)
        no_backward = None
        if kc < in_c and (positions > 1 or len(k_shape) > 1):
            no_backward = ("GEMM convolution engine does not support this convolution configuration. It is possible "
                           "to make GEMM engine work with this configuration by defining input/output/kernel using "
                           "tensors of higher(+1) dimension.\n\n(cntk-compat: the gradient of '%s', whose kernel %s "
                           "moves along the %d channels of its operand %r)"
                           % (node.name or node.uid, shape_text(w._shape), in_c, x))
        return {"n_dyn": x._n_dynamic, "in_c": 1, "kernel_shape": (out_c, 1, kc) + k_shape,
                "options": [(stride, 1, padded and out_c == 1, 0, 0)] + list(options), "groups": 1,
                "channel_axis": True, "no_backward": no_backward}
    return {"n_dyn": x._n_dynamic, "in_c": in_c, "kernel_shape": (out_c, in_c // groups) + k_shape,
            "options": options, "groups": groups}


def _refuse_channel_kernel(node, w, x, out_c, in_c, kc, k_shape, options, stride, padded, groups, positions,
                           moving):
    """What CNTK 2.7 (CPU) refuses, with a RuntimeError when it first computes the node, of a kernel along the
    channel axis (measured on 1 to 3 spatial axes, kernels with and without output maps):
    - auto padding that pads before the channels (a kernel spanning them included: lower pad > 0), or that pads
      along them at all for a kernel with several output maps taking several positions there: 'detected padding
      over channel axis';
    - a kernel taking several positions along the channels (narrower than them) on 1 or 2 spatial axes is computed
      only by its reference (GEMM) engine, which CNTK chooses where some auto-padded axis pads more after than
      before (the asymmetric padding it warns about); its MKL engine refuses the kernel otherwise ('Mismatching
      outputShape and mapCount'), and on 2 spatial axes also a narrower kernel taking one position ('mkl err (-1)');
    - with groups, any kernel moving along the channels."""
    channel = axis_geometry(in_c, kc, stride, 1, padded)
    lo = channel[1]
    if padded and (lo > 0 or (out_c > 1 and positions > 1)) or (moving and groups != 1):
        raise announced(RuntimeValueError, "%s Convolution operation: detected padding over channel axis. This is "
                        "not supported in cuDnn. Please try setting autoPadding to false for channel axis. "
                        % (node.name or node.uid))
    spatial = x._shape[1:]
    if not moving or len(k_shape) > 2 or any(n < 0 for n in spatial):
        return
    geo = [channel] + _geometry(node._attributes, k_shape, spatial)
    if asymmetric_padding([(stride, 1, padded, 0, 0)] + list(options), geo):
        return      # the GEMM engine
    note = "\n\n(cntk-compat: the kernel %s of '%s' moves along the %d channels of its operand %r)" \
        % (shape_text(w._shape), node.name or node.uid, in_c, x)
    if positions > 1:
        raise announced(RuntimeError, "Mismatching outputShape and mapCount" + note)
    if len(k_shape) == 2:
        raise announced(RuntimeError, "mkl err (-1)" + note)
    if out_c == 1 and padded and lo < geo[0][2]:
        raise announced(RuntimeError, "mkl err (-127)" + note)


def _to_kernel_rank(values, rank):
    """A per-axis option as CNTK reports it: extended to the kernel's rank by repeating its first value."""
    values = list(values)
    return [values[0]] * (rank - len(values)) + values if values else values


def _convolution_public(attrs, node, transpose=False):
    w, x = node.inputs
    # the kernel without its count of output maps (a kernel of the operand's rank has none)
    kernel = tuple(w.shape[1:]) if len(w.shape) > len(x.shape) else tuple(w.shape)
    rank = len(kernel)
    strides = _to_kernel_rank(attrs["strides"], rank)
    if transpose and len(attrs["strides"]) < rank and not attrs.get("output_shape"):
        # CNTK 2.7 reports the channel axis's (unused) stride of a transposed convolution as the operand's channels
        strides = [x.shape[0]] + _to_kernel_rank(attrs["strides"], rank - 1)
    auto_padding = _to_kernel_rank(attrs["auto_padding"], rank)
    if transpose and len(attrs["auto_padding"]) < rank:   # and the channel axis's, shorter lists left unpadded
        auto_padding = [False] + _to_kernel_rank(attrs["auto_padding"], rank - 1)
    shared = attrs.get("sharing", (True,))
    sharing = [True] + _to_kernel_rank(shared, rank - 1) if transpose and len(shared) < rank else \
        _to_kernel_rank(shared, rank)
    output_shape = attrs.get("output_shape")
    # (in the order CNTK inserts them)
    return {"strides": tuple(strides), "dilation": tuple(_to_kernel_rank(attrs["dilation"], rank)),
            "upperPad": tuple(attrs["upper_pad"] or (0,) * rank), "sharing": sharing,
            "autoPadding": auto_padding, "sequential": False,
            "lowerPad": tuple(attrs["lower_pad"] or (0,) * rank), "transpose": transpose,
            "outputShape": tuple(output_shape) if output_shape else (0,), "kernelShape": kernel,
            "maxTempMemSizeInSamples": 0, "groups": attrs["groups"]}


def _convolution_transpose_public(attrs, node):
    return _convolution_public(attrs, node, transpose=True)


def _convolution_transform(node):
    """Output position p is the window whose centre lies at stride * p + (extent - 1) // 2 - lower pad."""
    w, x = node._inputs
    a = node._attributes
    _, _, k_shape, spatial = _split(w._shape, x._shape, a["reduction_rank"], a["op_name"])
    return 1, [(s, ((k - 1) * d) // 2 - lo) for k, (s, d, _, _, _), (_, lo, _)
               in zip(k_shape, _axis_options(a, len(k_shape)), _geometry(a, k_shape, spatial))]


register_op("Convolution", _convolution_infer, _convolution, prepare=_convolution_prepare,
            public_attributes=_convolution_public, spatial_transform=_convolution_transform)


def _ints(v):
    return tuple(int(d) for d in option_tuple(v))


def _attributes(op_name, strides, sharing, auto_padding, dilation, reduction_rank, groups, lower_pad=None,
                upper_pad=None):
    if reduction_rank not in (0, 1):
        raise announced(RuntimeValueError, "reductionRank: must be 1 or 0.\n\n(cntk-compat: %s got reduction_rank=%r)"
                        % (op_name, reduction_rank))
    if int(groups) < 1:
        raise ValueError("%s: groups must be > 0, got %r" % (op_name, groups))
    return {"op_name": op_name, "strides": _ints(strides),
            "auto_padding": tuple(bool(p) for p in option_tuple(auto_padding)),
            "sharing": tuple(bool(p) for p in option_tuple(sharing)),
            "dilation": _ints(dilation),
            "lower_pad": tuple(lower_pad) if lower_pad else None, "upper_pad": tuple(upper_pad) if upper_pad else None,
            "reduction_rank": int(reduction_rank), "groups": int(groups)}


def convolution(convolution_map, operand, strides=(1,), sharing=[True], auto_padding=[True], sequential=False,
                dilation=(1,), reduction_rank=1, groups=1, max_temp_mem_size_in_samples=0, name=""):
    """Convolution of operand (C, *spatial) with the kernel convolution_map (O, C/groups, *filter); the result is
    (O, *output spatial). Per-axis options cover the trailing axes (channel axis included)."""
    w, x = sanitize_operands(convolution_map, operand, names=["convolution_map", "operand"])
    if sequential:
        if reduction_rank != 1:
            raise ValueError("convolution: sequential=True needs reduction_rank=1 (insert the channel axis of size 1 "
                             "first), got %r" % (reduction_rank,))
        if w._shape is None:
            raise ValueError("convolution: sequential=True needs a kernel of known rank")
        attrs = sequential_attributes(len(w._shape) - 2, strides, auto_padding, dilation, groups)
        return make("SequentialConvolution", [w, x], attrs, name)
    return make("Convolution", [w, x], _attributes("convolution", strides, sharing, auto_padding, dilation,
                                                   reduction_rank, groups), name)


def _split_transpose(w_shape, x_shape, reduction_rank, op_name):
    """(in_channels, out_channels, kernel spatial shape, input spatial shape) for a (C_in, O, *filter) kernel; the
    kernel may leave out the axes of size 1 (C_in with reduction_rank=0, O)."""
    spatial = tuple(x_shape[reduction_rank:])
    in_c = x_shape[0] if reduction_rank else 1
    extra = len(w_shape) - len(spatial)
    if extra == 2 and (reduction_rank == 1 or w_shape[0] in (1, -1)):
        return in_c, w_shape[1], tuple(w_shape[2:]), spatial
    if extra == 1:
        return in_c, (1 if reduction_rank else w_shape[0]), tuple(w_shape[1:]), spatial
    if extra == 0 and reduction_rank == 0:
        return 1, 1, tuple(w_shape), spatial
    raise ValueError("%s: a kernel of shape %s does not fit an operand of shape %s; expected kernel "
                     "(in_channels, out_channels, *filter)" % (op_name, w_shape, x_shape))


@_when_shapes_known
def _transpose_infer(w, x, dtype, attributes):
    op_name = attributes["op_name"]
    rr = attributes["reduction_rank"]
    in_c, out_c, k_shape, spatial = _split_transpose(w._shape, x._shape, rr, op_name)
    if in_c >= 0 and rr == 1:
        _resolve_kernel(w, (in_c,) + tuple(w._shape[1:]))
    elif rr == 0:
        _resolve_kernel(w, tuple(d if d != -1 else 1 for d in w._shape))
    out = attributes["output_shape"]
    if out is None:
        full = len(k_shape) + rr
        strides = per_axis(attributes["strides"], full, "strides", op_name)[rr:]
        auto = per_axis(attributes["auto_padding"], full, "auto_padding", op_name)[rr:]
        dil = per_axis(attributes["dilation"], full, "dilation", op_name)[rr:]
        # CNTK 2.7: an auto-padded axis gives (n - 1) * stride + 1 (the smallest output its convolution maps to n)
        out = tuple((n - 1) * s + 1 if a else (n - 1) * s + (k - 1) * d + 1
                    for n, k, s, a, d in zip(spatial, k_shape, strides, auto, dil))
    else:
        _check_output_shape(w, x, attributes, out_c, k_shape, tuple(out))
        out = tuple(out)[len(out) - len(k_shape):]
    return [OutputSpec((out_c,) + tuple(out), dtype, x._dynamic_axes)]


def _check_output_shape(w, x, attributes, out_c, k_shape, out):
    """CNTK 2.7 accepts the output_shape of a transposed convolution only if the convolution it transposes maps
    that shape (its channel axis a convolution axis like the others, under the first per-axis option) back to the
    operand's shape (with reduction_rank 0 the operand has one channel)."""
    rank = len(k_shape) + 1
    note = "\n\n(cntk-compat: convolution_transpose of the operand %r by the kernel %s, output_shape %s)" \
        % (x, shape_text(w._shape), shape_text(out))
    if len(out) < rank:
        raise announced(ValueError, "Convolution input and kernel tensors must have the same rank." + note)
    if len(out) > rank:
        raise announced(ValueError, "Convolution map tensor must have rank 1 or the same as the input tensor." + note)
    kernel = (out_c,) + tuple(k_shape)     # the kernel of the convolution transposed: its input is our output
    maps = w._shape[0] if attributes["reduction_rank"] else 1
    if maps < 0 or out_c < 0:
        return
    _check_kernel_fits(kernel, out, note)
    op_name = attributes["op_name"]
    options = zip(*(per_axis(attributes[k] or (0,), rank, k, op_name)
                    for k in ("strides", "dilation", "auto_padding", "lower_pad", "upper_pad")))
    convolved = [n if n < 0 else axis_geometry(n, k, *o)[0] for n, k, o in zip(out, kernel, options)]
    convolved[0] *= maps
    operand = tuple(x._shape) if attributes["reduction_rank"] else (1,) + tuple(x._shape)
    if tuple(convolved) != operand:
        raise announced(RuntimeError, "Convolution transpose: The shape '%s' of the convolution transpose operand "
                        "'%r' is different than the resulting shape '%s' from convolving the specified output shape "
                        "'%s' using the provided options." % (shape_text(operand), x, shape_text(convolved),
                                                               shape_text(out)))


def _convolution_transpose(w, x, n_dyn, in_c, los, out_spatial, strides, dilation, out_shape, asymmetric=False):
    lead = x.shape[:n_dyn]
    rank = len(strides)
    x = x.reshape((-1, in_c) + tuple(x.shape[x.dim() - rank:]))
    w = w.reshape((in_c, -1) + tuple(w.shape[w.dim() - rank:]))
    y = _CONV_T[rank](x, w, None, strides, 0, 0, 1, dilation)
    if asymmetric:
        warn_asymmetric(y, w, x)
    pads = []
    for full, lo, m in zip(reversed(y.shape[2:]), reversed(los), reversed(out_spatial)):
        pads += [-lo, m - (full - lo)]
    if any(pads):
        y = F.pad(y, pads)
    return y.reshape(tuple(lead) + tuple(out_shape))


def _transpose_prepare(node):
    _refuse_unshared(node)
    w, x = node._inputs
    a = node._attributes
    out_shape = node._outputs[0]._shape
    rr = a["reduction_rank"]
    in_c, _, k_shape, spatial = _split_transpose(w._shape, x._shape, rr, a["op_name"])
    out_spatial = tuple(out_shape[1:])
    note = "\n\n(cntk-compat: the transposed convolution '%s' of the operand %r by the kernel %s)" \
        % (node.name or node.uid, x, shape_text(w._shape))
    if rr and w._shape[0] != in_c >= 0:
        raise RuntimeError("The kernel's %d input channels do not match the %d channels of the operand.%s"
                           % (w._shape[0], in_c, note))
    # when it evaluates the graph, CNTK 2.7 checks the kernel against the output, as the convolution's input
    _check_kernel_fits(k_shape, out_spatial, note)
    geo = _geometry(a, k_shape, out_spatial)
    options = _axis_options(a, len(k_shape))
    return {"n_dyn": x._n_dynamic, "in_c": in_c, "los": [g[1] for g in geo],
            "out_spatial": out_spatial, "strides": tuple(o[0] for o in options),
            "dilation": tuple(o[1] for o in options), "out_shape": out_shape,
            "asymmetric": asymmetric_padding(options, geo)}


def _transpose_transform(node):
    """The inverse of the convolution it transposes: operand position q has its window centred at output position
    stride * q + t, so output position p lies at (p - t) / stride."""
    args = _transpose_prepare(node)
    w, x = node._inputs
    a = node._attributes
    _, _, k_shape, _ = _split_transpose(w._shape, x._shape, a["reduction_rank"], a["op_name"])
    return 1, [(1.0 / s, -(((k - 1) * d) // 2 - lo) / s)
               for k, s, d, lo in zip(k_shape, args["strides"], args["dilation"], args["los"])]


register_op("ConvolutionTranspose", _transpose_infer, _convolution_transpose, prepare=_transpose_prepare,
            spatial_transform=_transpose_transform, public_attributes=_convolution_transpose_public)


def convolution_transpose(convolution_map, operand, strides=(1,), sharing=[True], auto_padding=[True],
                          output_shape=None, dilation=(1,), reduction_rank=1, max_temp_mem_size_in_samples=0, name=""):
    """Transposed convolution ('deconvolution'): the gradient of convolution with the kernel convolution_map
    (C_in, O, *filter) with respect to its operand; output_shape fixes the output's spatial size."""
    w, x = sanitize_operands(convolution_map, operand, names=["convolution_map", "operand"])
    attrs = _attributes("convolution_transpose", strides, sharing, auto_padding, dilation, reduction_rank, 1)
    attrs["output_shape"] = None if output_shape is None else tuple(
        output_shape if isinstance(output_shape, (tuple, list)) else (output_shape,))
    # CNTK 2.7 has one Convolution primitive (transpose is its attribute): op_name says Convolution
    prim = Function._primitive("ConvolutionTranspose", [w, x], attrs, name, display_name="Convolution")
    return Function._composite(prim.outputs)
