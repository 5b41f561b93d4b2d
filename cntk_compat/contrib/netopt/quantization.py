"""Binarized convolutions (cntk.contrib.netopt.quantization, CNTK 2.7's API).

``convert_to_binary_convolution`` rebuilds each Convolution layer (a block named "Convolution") of a model with
its convolution replaced by a ``binary_convolution``: a new, freshly initialized kernel ("filter") and the layer's
input, both binarized by ``CustomMultibit(., 1)``, convolved with the layer's strides and padding. The layer's
bias and activation are kept (shared); its old kernel is no longer used. ``binarize_convolution`` converts,
calls the user's training function on the converted model and lowers the result to CNTK's native Halide
kernels, which cntk-compat cannot load (see cntk.contrib.netopt); as in CNTK 2.7, its filter_function is not
used (every convolution layer is converted).
"""
import cntk_compat as C
from cntk_compat.core.function import Function
from cntk_compat.misc.converter import convert

from . import custom_convolution_ops
from .custom_convolution_ops import *  # noqa: F401,F403 (CNTK's module exports these too)
from .custom_convolution_ops import CustomMultibit

__all__ = ["binarize_convolution", "convert_to_native_binary_convolution", "convert_to_binary_convolution",
           "binary_convolution"] + custom_convolution_ops.__all__

_PLUGIN = 'Cntk.BinaryConvolution-' + C.__version__.rstrip('+')


def binarize_convolution(model, train_function, filter_function=None):
    """convert_to_binary_convolution(model), trained by ``train_function(converted)``, then lowered by
    convert_to_native_binary_convolution. ``filter_function`` is accepted and, as in CNTK 2.7, not applied."""
    assert train_function
    converted = convert_to_binary_convolution(model)
    train_function(converted)
    return convert_to_native_binary_convolution(converted)


def convert_to_native_binary_convolution(model):
    """The model with its BinaryConvolution blocks replaced by CNTK's native Halide implementation: raises
    CNTK's exception for a plugin that could not be loaded (always the case here)."""
    from . import native_convolve_function_registered
    if not native_convolve_function_registered:
        raise Exception("Could not find {0} library. Please check if HALIDE_PATH is configured properly and try "
                        "building {1} again".format(_PLUGIN, 'Extnsibiliy\\BinaryConvolution'))
    raise NotImplementedError("convert_to_native_binary_convolution: native user functions are not supported")


def _is_layer(f, op_name):
    return isinstance(f, Function) and f.is_block and f.op_name == op_name


def convert_to_binary_convolution(model, filter_function=None):
    """``model`` with the convolution inside each selected Convolution layer replaced by a binary_convolution of
    the layer's input (2D square strides and padding, as CNTK 2.7 requires)."""
    def selected(f):
        return _is_layer(f, 'Convolution') and (filter_function(f) if filter_function else True)

    def rebuild_layer(layer):
        def binarized(conv):
            kernel = conv.W.shape                                  # (filters, channels, *filter_shape)
            strides, padding = conv.attributes["strides"], conv.attributes["autoPadding"]
            assert strides[-1] == strides[-2]
            assert padding[-1] == padding[-2]
            return binary_convolution((kernel[-2], kernel[-1]), num_filters=kernel[0], channels=kernel[1],
                                      strides=strides[-1], pad=padding[-1],
                                      name='BinaryConvolution')(layer.inputs[-1])

        def is_convolution(f):
            return isinstance(f, Function) and not f.is_block and f.op_name == 'Convolution'
        return convert(C.as_composite(layer.block_root), is_convolution, binarized)

    return convert(model, selected, rebuild_layer)


_default_init = C.glorot_uniform()


def binary_convolution(filter_shape, num_filters=1, channels=1, init=_default_init, pad=False, strides=1,
                       name='BinaryConvolution'):
    """A function x -> block ``name``: convolution of CustomMultibit(filter, 1) over CustomMultibit(x, 1), the
    filter a new Parameter (num_filters, channels, *filter_shape) named "filter"."""
    W = C.Parameter(shape=(num_filters, channels) + tuple(filter_shape), init=init, name="filter")

    def convolution(operand):
        inner = C.placeholder(operand.shape, operand.dynamic_axes, name="operand")
        r = C.convolution(CustomMultibit(W, 1), CustomMultibit(inner, 1), auto_padding=[False, pad, pad],
                          strides=[strides])
        return C.as_block(r, [(inner, operand)], name)
    return convolution
