"""MaxPooling, AveragePooling, GlobalMaxPooling, GlobalAveragePooling, MaxUnpooling."""
from ..default_options import default_override_or, get_default_override
from ..ops import AVG_POOLING, MAX_POOLING, MAX_UNPOOLING, pooling, unpooling
from .building import _as_tuple, block
from .convolution import _pad_to_shape

__all__ = ["MaxPooling", "AveragePooling", "GlobalMaxPooling", "GlobalAveragePooling", "MaxUnpooling"]


def _pooling(pooling_type, filter_shape, strides, pad, op_name, name):
    if filter_shape is None:
        def pool(x):
            return pooling(x, pooling_type, None)
    else:
        filter_shape = _as_tuple(filter_shape)
        strides = _pad_to_shape(filter_shape, strides, "strides")
        pad = _pad_to_shape(filter_shape, pad, "pad")

        def pool(x):
            return pooling(x, pooling_type, filter_shape, strides=strides, auto_padding=pad)
    return block(pool, op_name, name)


def MaxPooling(filter_shape, strides=1, pad=default_override_or(False), name=""):
    """Maximum over each filter_shape window of the trailing axes."""
    pad = get_default_override(MaxPooling, pad=pad)
    return _pooling(MAX_POOLING, filter_shape, strides, pad, "MaxPooling", name)


def AveragePooling(filter_shape, strides=1, pad=default_override_or(False), name=""):
    """Average over each filter_shape window of the trailing axes (padding excluded)."""
    pad = get_default_override(AveragePooling, pad=pad)
    return _pooling(AVG_POOLING, filter_shape, strides, pad, "AveragePooling", name)


def GlobalMaxPooling(name=""):
    """Maximum over all spatial positions of each channel: (C, H, W) -> (C, 1, 1)."""
    return _pooling(MAX_POOLING, None, 1, False, "GlobalMaxPooling", name)


def GlobalAveragePooling(name=""):
    """Average over all spatial positions of each channel: (C, H, W) -> (C, 1, 1)."""
    return _pooling(AVG_POOLING, None, 1, False, "GlobalAveragePooling", name)


def MaxUnpooling(filter_shape, strides=1, pad=False, name=""):
    """MaxUnpooling(...)(x, pooling_input): puts each value of x where its window's maximum was."""
    filter_shape = _as_tuple(filter_shape)
    strides = _pad_to_shape(filter_shape, strides, "strides")
    pad = _pad_to_shape(filter_shape, pad, "pad")

    def maxunpool(x, y):
        return unpooling(x, y, MAX_UNPOOLING, filter_shape, strides=strides, auto_padding=pad)
    return block(maxunpool, "MaxUnpooling", name)
