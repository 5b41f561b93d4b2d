"""BatchNormalization and LayerNormalization."""
import numpy as np

from ..core.variables import Constant, InferredDimension, Parameter
from ..default_options import default_override_or, get_default_override
from ..ops import batch_normalization, reduce_mean, sqrt
from .building import block

__all__ = ["BatchNormalization", "LayerNormalization"]


def BatchNormalization(map_rank=default_override_or(None), init_scale=1,
                       normalization_time_constant=default_override_or(5000), blend_time_constant=0,
                       epsilon=default_override_or(0.00001), use_cntk_engine=default_override_or(False),
                       disable_regularization=default_override_or(False), name=""):
    """Batch normalization with learnable scale and bias; map_rank=1 shares statistics over all but the leading
    (channel) axis. The running statistics (aggregate_mean, aggregate_variance, aggregate_count) are Constants
    updated in place while training and used for inference."""
    map_rank = get_default_override(BatchNormalization, map_rank=map_rank)
    normalization_time_constant = get_default_override(BatchNormalization,
                                                        normalization_time_constant=normalization_time_constant)
    epsilon = get_default_override(BatchNormalization, epsilon=epsilon)
    use_cntk_engine = get_default_override(BatchNormalization, use_cntk_engine=use_cntk_engine)
    disable_regularization = get_default_override(BatchNormalization, disable_regularization=disable_regularization)
    if map_rank not in (None, 1):  # CNTK 2.7: UntestedBranchError, a NotImplementedError
        raise NotImplementedError("BatchNormalization: map_rank can only be 1 or None for now, got %r" % (map_rank,))
    norm_shape = (InferredDimension,)
    scale = Parameter(norm_shape, init=init_scale, name="scale")
    bias = Parameter(norm_shape, init=0, name="bias")
    run_mean = Constant(0, shape=norm_shape, name="aggregate_mean")
    run_variance = Constant(0, shape=norm_shape, name="aggregate_variance")
    run_count = Constant(0, shape=(), name="aggregate_count")

    def batch_normalize(x):
        return batch_normalization(x, scale, bias, run_mean, run_variance, running_count=run_count,
                                   spatial=map_rank == 1, normalization_time_constant=normalization_time_constant,
                                   blend_time_constant=blend_time_constant, epsilon=epsilon,
                                   use_cudnn_engine=not use_cntk_engine, disable_regularization=disable_regularization)
    return block(batch_normalize, "BatchNormalization", name)


def LayerNormalization(initial_scale=1, initial_bias=0, epsilon=default_override_or(0.00001), name=""):
    """Normalizes each sample to zero mean and unit variance over all its axes, then scales and shifts
    (learnable scale and bias along the last axis, sized from the input)."""
    epsilon = get_default_override(LayerNormalization, epsilon=epsilon)
    scale = Parameter((InferredDimension,), init=initial_scale, name="scale")
    bias = Parameter((InferredDimension,), init=initial_bias, name="bias")
    # in the precision of default_options(dtype=...), as CNTK 2.7 casts it
    eps = Constant(epsilon, dtype=get_default_override(None, dtype=default_override_or(np.float32)))

    def layer_normalize(x):
        mean = reduce_mean(x)
        x0 = x - mean
        std = sqrt(reduce_mean(x0 * x0))
        if epsilon != 0:
            std = std + eps
        return x0 / std * scale + bias
    return block(layer_normalize, "LayerNormalization", name)
