"""Convolution, Convolution1D/2D/3D, ConvolutionTranspose, ConvolutionTranspose1D/2D/3D."""
import numpy as np

from ..core.variables import InferredDimension, Parameter
from ..default_options import default_override_or, get_default_override
from ..initializer import glorot_uniform
from ..ops import convolution, convolution_transpose, expand_dims, reshape
from ..ops._geometry import option_tuple
from ..ops.sequential_convolution import windowed_convolution
from .building import _as_tuple, _initializer_for, block, identity

__all__ = ["SequentialConvolution", "Convolution", "Convolution1D", "Convolution2D", "Convolution3D", "ConvolutionTranspose",
           "ConvolutionTranspose1D", "ConvolutionTranspose2D", "ConvolutionTranspose3D"]


def _pad_to_shape(filter_shape, param, what):
    """A per-axis option for every filter axis: as in CNTK 2.7, a scalar or a one-element list or tuple
    (``pad=[True]``) repeats, and any other length than the filter's is refused with CNTK's message."""
    param = option_tuple(param)
    if len(param) == 1:
        return param * len(filter_shape)
    if len(param) != len(filter_shape):
        raise ValueError("%s parameter (%s) must be a scalar or have same number of elements as the "
                         "filter_shape parameter (%s)" % (what, param, filter_shape))
    return param


def _per_axis_options(filter_shape, strides, pad, dilation):
    """filter_shape as a tuple, and strides, pad and dilation with one entry per filter axis."""
    filter_shape = _as_tuple(filter_shape)
    return (filter_shape, _pad_to_shape(filter_shape, strides, "strides"), _pad_to_shape(filter_shape, pad, "pad"),
            _pad_to_shape(filter_shape, dilation, "dilation"))


def _filter_shape_of_rank(layer, filter_shape, rank):
    """filter_shape as a rank-element tuple: as CNTK, the 2D and 3D variants also take a scalar (or 1-tuple)
    for all spatial axes, e.g. 5 -> (5, 5)."""
    if len(filter_shape) == 1 and rank > 1:
        return filter_shape * rank
    if len(filter_shape) != rank:
        raise ValueError("%s: filter_shape must be a scalar" % layer if rank == 1 else
                         "%s: filter_shape must be a scalar or a %dD tuple, e.g. 3 or (%s)"
                         % (layer, rank, ",".join(["3"] * rank)))
    return filter_shape


def _resolve_options(layer, activation, init, pad, bias, init_bias):
    return tuple(get_default_override(layer, **{k: v}) for k, v in
                 (("activation", activation), ("init", init), ("pad", pad), ("bias", bias), ("init_bias", init_bias)))


def _check_options(layer, reduction_rank, transpose_weight, sharing, groups, sequential=True):
    """CNTK 2.7's refusals (its messages say 'Convolution' whatever the variant)."""
    note = "\n\n(cntk-compat: %s got reduction_rank=%r, groups=%r)" % (layer, reduction_rank, groups)
    if reduction_rank not in (0, 1):
        raise NotImplementedError("Convolution: reduction_rank must be 0 or 1" + note)
    if transpose_weight:
        raise NotImplementedError("Convolution: transpose_weight option currently not supported")
    if sequential and not all(_as_tuple(sharing)):
        raise NotImplementedError("%s: sharing option currently must be True" % layer)
    if groups <= 0:
        raise ValueError("Convolution: groups must be strictly positive, i.e. groups > 0." + note)
    if groups > 1:  # as CNTK 2.7's layer (the convolution op takes groups)
        raise ValueError("Convolution: groups > 1, is not currently supported by Convolution layer. For group "
                         "convolution with groups > 1, use CNTK's low-level convolution node (cntk.convolution)."
                         + note)


def _kernel_parameters(layer, filter_shape, num_filters, init, bias, init_bias, reduction_rank, bias_rank):
    """W (out_channels, C, *filter_shape) and b (out_channels, *(1,) * bias_rank); num_filters None or () gives
    one output channel, which the layer then drops."""
    out_channels = _as_tuple(num_filters) or (1,)
    if isinstance(init, np.ndarray):  # as in CNTK 2.7: only without a reduction axis, of shape num_filters + filter
        if reduction_rank != 0:
            raise ValueError("%s: an array initializer (shape %s) can only be used with reduction_rank=0"
                             % (layer, init.shape))
        nominal = _as_tuple(num_filters) + filter_shape
        if init.shape != nominal:
            raise ValueError("%s: an array initializer of shape %s was passed; num_filters %s and filter_shape %s "
                             "need shape %s" % (layer, init.shape, num_filters, filter_shape, nominal))
        init_kernel = init.reshape(out_channels + (1,) + filter_shape)
    else:
        init_kernel = _initializer_for(init, {"output_rank": -len(out_channels), "filter_rank": len(filter_shape)})
    W = Parameter(out_channels + (InferredDimension,) + filter_shape, init=init_kernel, name="W")
    b = Parameter(out_channels + (1,) * bias_rank, init=init_bias, name="b") if bias else None
    return W, b


def _fixed_rank(base, variant, rank, filter_shape, num_filters, activation, init, pad, bias, init_bias, **rest):
    """A 1D/2D/3D variant of `base`: resolves the defaults under the variant's own name, checks the filter rank
    and builds `base` named after the variant."""
    activation, init, pad, bias, init_bias = _resolve_options(variant, activation, init, pad, bias, init_bias)
    filter_shape = _filter_shape_of_rank(variant.__name__, _as_tuple(filter_shape), rank)
    return base(filter_shape, num_filters, activation=activation, init=init, pad=pad, bias=bias, init_bias=init_bias,
                op_name=variant.__name__, **rest)


def _finish(r, b, activation, drop_channel_axis, n_spatial):
    """Adds the bias, drops the emulated output channel axis (a Reshape, as CNTK's), applies the activation."""
    if b is not None:
        r = r + b
    if drop_channel_axis:
        r = reshape(r, (), begin_axis=-n_spatial - 1, end_axis=-n_spatial if n_spatial else None)
    if activation is not None:
        r = activation(r)
    return r


def Convolution(filter_shape, num_filters=None, sequential=False, activation=default_override_or(identity),
                init=default_override_or(glorot_uniform()), pad=default_override_or(False), strides=1, sharing=True,
                bias=default_override_or(True), init_bias=default_override_or(0), reduction_rank=1,
                transpose_weight=False, dilation=1, groups=1, max_temp_mem_size_in_samples=0, op_name="Convolution",
                name=""):
    """activation(convolution(W, x) + b): W (num_filters, C/groups, *filter_shape), b (num_filters, 1, ...).
    reduction_rank=0 takes inputs without a channel axis (W then has C=1); num_filters=None gives outputs without
    a channel axis; sequential=True convolves along the sequence axis too (filter_shape[0] is its extent)."""
    activation, init, pad, bias, init_bias = _resolve_options(Convolution, activation, init, pad, bias, init_bias)
    if sequential:
        # CNTK 2.7 windows the sequence here (its bias keeps an axis for the sequence's filter axis; a stride
        # along the sequence is refused), where SequentialConvolution convolves along it
        if _pad_to_shape(_as_tuple(filter_shape), strides, "strides")[0] != 1:
            raise NotImplementedError("windowed convolution with stride not yet implemented\n\n(cntk-compat: %s with "
                                      "sequential=True and a stride along the sequence axis)" % op_name)
        return _sequential_convolution("Convolution", filter_shape, num_filters, activation, init, pad, strides,
                                       sharing, bias, init_bias, reduction_rank, transpose_weight, dilation, groups,
                                       name, bias_rank=len(_as_tuple(filter_shape)), windowed=True)
    # (a kernel not shared is refused when computed, as CNTK 2.7 does)
    _check_options(op_name, reduction_rank, transpose_weight, sharing, groups, sequential=False)
    sharing = _pad_to_shape(_as_tuple(filter_shape), sharing, "sharing")
    filter_shape, strides, pad, dilation = _per_axis_options(filter_shape, strides, pad, dilation)
    W, b = _kernel_parameters(op_name, filter_shape, num_filters, init, bias, init_bias, reduction_rank,
                              len(filter_shape))
    lead = (1,) * reduction_rank

    def convolve(x):
        r = convolution(W, x, strides=lead + strides, sharing=(True,) * reduction_rank + sharing,
                        auto_padding=(False,) * reduction_rank + pad, dilation=lead + dilation,
                        reduction_rank=reduction_rank, groups=groups)
        return _finish(r, b, activation, not _as_tuple(num_filters), len(filter_shape))
    # CNTK 2.7 names the block "Convolution" whatever the variant (op_name only names it in messages)
    return block(convolve, "Convolution", name)


def SequentialConvolution(filter_shape, num_filters=None, activation=default_override_or(identity),
                          init=default_override_or(glorot_uniform()), pad=default_override_or(False), strides=1,
                          sharing=True, bias=default_override_or(True), init_bias=default_override_or(0),
                          reduction_rank=1, transpose_weight=False, dilation=1, groups=1,
                          max_temp_mem_size_in_samples=0, op_name="Convolution", name=""):
    """Convolution whose first filter axis runs along the sequence axis (e.g. over the frames of a variable-length
    input); the remaining filter axes cover the trailing static axes of each item. Sequences are padded with zeros;
    without padding each output sequence is shorter than its input."""
    activation, init, pad, bias, init_bias = _resolve_options(SequentialConvolution, activation, init, pad, bias,
                                                              init_bias)
    return _sequential_convolution("SequentialConvolution", filter_shape, num_filters, activation, init, pad,
                                   strides, sharing, bias, init_bias, reduction_rank, transpose_weight, dilation,
                                   groups, name, bias_rank=len(_as_tuple(filter_shape)) - 1)


def _sequential_convolution(layer, filter_shape, num_filters, activation, init, pad, strides, sharing, bias,
                            init_bias, reduction_rank, transpose_weight, dilation, groups, name, bias_rank,
                            windowed=False):
    """The convolution along the sequence axis of SequentialConvolution and Convolution(sequential=True); the
    bias has bias_rank axes after the channels (those of SequentialConvolution's item axes, one more for
    Convolution's)."""
    _check_options(layer, reduction_rank, transpose_weight, sharing, groups)
    filter_shape, strides, pad, dilation = _per_axis_options(filter_shape, strides, pad, dilation)
    n_spatial = len(filter_shape) - 1  # the first filter axis runs along the sequence
    W, b = _kernel_parameters(layer, filter_shape, num_filters, init, bias, init_bias, reduction_rank, bias_rank)
    out_channels = _as_tuple(num_filters) or (1,)

    def convolve(x):
        if reduction_rank == 0:
            x = expand_dims(x, -n_spatial - 1)  # the channel axis of size 1, before the spatial item axes
        if windowed:
            r = windowed_convolution(W, x, strides, pad, dilation, groups)
        else:
            r = convolution(W, x, strides=strides, auto_padding=pad, sequential=True, dilation=dilation, groups=groups)
        bias_term = b if b is None or bias_rank == n_spatial else reshape(b, out_channels + (1,) * n_spatial)
        return _finish(r, bias_term, activation, not _as_tuple(num_filters), n_spatial)
    return block(convolve, "Convolution", name)


def Convolution1D(filter_shape, num_filters=None, activation=default_override_or(identity),
                  init=default_override_or(glorot_uniform()), pad=default_override_or(False), strides=1,
                  bias=default_override_or(True), init_bias=default_override_or(0), reduction_rank=1, dilation=1,
                  name=""):
    """Convolution over one spatial axis (filter_shape an int)."""
    return _fixed_rank(Convolution, Convolution1D, 1, filter_shape, num_filters, activation, init, pad, bias, init_bias,
                       strides=strides, reduction_rank=reduction_rank, dilation=dilation, name=name)


def Convolution2D(filter_shape, num_filters=None, activation=default_override_or(identity),
                  init=default_override_or(glorot_uniform()), pad=default_override_or(False), strides=1,
                  bias=default_override_or(True), init_bias=default_override_or(0), reduction_rank=1, dilation=1,
                  groups=1, name=""):
    """Convolution over two spatial axes (filter_shape a 2-tuple)."""
    return _fixed_rank(Convolution, Convolution2D, 2, filter_shape, num_filters, activation, init, pad, bias, init_bias,
                       strides=strides, reduction_rank=reduction_rank, dilation=dilation, groups=groups, name=name)


def Convolution3D(filter_shape, num_filters=None, activation=default_override_or(identity),
                  init=default_override_or(glorot_uniform()), pad=default_override_or(False), strides=1,
                  bias=default_override_or(True), init_bias=default_override_or(0), reduction_rank=1, dilation=1,
                  groups=1, name=""):
    """Convolution over three spatial axes (filter_shape a 3-tuple)."""
    return _fixed_rank(Convolution, Convolution3D, 3, filter_shape, num_filters, activation, init, pad, bias, init_bias,
                       strides=strides, reduction_rank=reduction_rank, dilation=dilation, groups=groups, name=name)


def ConvolutionTranspose(filter_shape, num_filters, activation=default_override_or(identity),
                         init=default_override_or(glorot_uniform()), pad=default_override_or(False), strides=1,
                         sharing=True, bias=default_override_or(True), init_bias=default_override_or(0),
                         output_shape=None, reduction_rank=1, dilation=1, max_temp_mem_size_in_samples=0, name="",
                         *, op_name="ConvolutionTranspose"):
    """activation(convolution_transpose(W, x) + b): W (C, num_filters, *filter_shape); output_shape fixes the
    output's spatial size."""
    activation, init, pad, bias, init_bias = _resolve_options(ConvolutionTranspose, activation, init, pad, bias,
                                                              init_bias)
    filter_shape, strides, pad, dilation = _per_axis_options(filter_shape, strides, pad, dilation)
    if reduction_rank not in (0, 1):
        raise NotImplementedError("ConvolutionTranspose: reduction_rank must be 0 or 1")
    sharing = _pad_to_shape(filter_shape, sharing, "sharing")   # (a kernel not shared is refused when computed)
    if num_filters is None:  # unlike Convolution, CNTK 2.7's ConvolutionTranspose requires it
        raise TypeError("ConvolutionTranspose: num_filters must be given (an int, or () for scalar output items)")
    out_channels = _as_tuple(num_filters)
    W = Parameter((InferredDimension,) + out_channels + filter_shape,
                  init=_initializer_for(init, {"output_rank": -1, "filter_rank": len(filter_shape)}), name="W")
    b = Parameter(out_channels + (1,) * len(filter_shape), init=init_bias, name="b") if bias else None
    full_output = None if output_shape is None else out_channels + _as_tuple(output_shape)
    lead = (1,) * reduction_rank

    def convolve_transposed(x):
        r = convolution_transpose(W, x, strides=lead + strides, sharing=(True,) * reduction_rank + sharing,
                                  auto_padding=(False,) * reduction_rank + pad,
                                  output_shape=full_output, dilation=lead + dilation, reduction_rank=reduction_rank)
        return _finish(r, b, activation, False, len(filter_shape))
    return block(convolve_transposed, "ConvolutionTranspose", name)  # whatever the variant, as CNTK 2.7


def ConvolutionTranspose1D(filter_shape, num_filters, activation=default_override_or(identity),
                           init=default_override_or(glorot_uniform()), pad=default_override_or(False), strides=1,
                           bias=default_override_or(True), init_bias=default_override_or(0), output_shape=None,
                           reduction_rank=1, dilation=1, name=""):
    return _fixed_rank(ConvolutionTranspose, ConvolutionTranspose1D, 1, filter_shape, num_filters, activation, init,
                       pad, bias, init_bias, strides=strides, output_shape=output_shape,
                       reduction_rank=reduction_rank, dilation=dilation, name=name)


def ConvolutionTranspose2D(filter_shape, num_filters, activation=default_override_or(identity),
                           init=default_override_or(glorot_uniform()), pad=default_override_or(False), strides=1,
                           bias=default_override_or(True), init_bias=default_override_or(0), output_shape=None,
                           reduction_rank=1, dilation=1, name=""):
    return _fixed_rank(ConvolutionTranspose, ConvolutionTranspose2D, 2, filter_shape, num_filters, activation, init,
                       pad, bias, init_bias, strides=strides, output_shape=output_shape,
                       reduction_rank=reduction_rank, dilation=dilation, name=name)


def ConvolutionTranspose3D(filter_shape, num_filters, activation=default_override_or(identity),
                           init=default_override_or(glorot_uniform()), pad=default_override_or(False), strides=1,
                           bias=default_override_or(True), init_bias=default_override_or(0), output_shape=None,
                           reduction_rank=1, dilation=1, name=""):
    return _fixed_rank(ConvolutionTranspose, ConvolutionTranspose3D, 3, filter_shape, num_filters, activation, init,
                       pad, bias, init_bias, strides=strides, output_shape=output_shape,
                       reduction_rank=reduction_rank, dilation=dilation, name=name)
