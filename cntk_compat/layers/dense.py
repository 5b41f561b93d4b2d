"""Dense and Embedding."""
import numpy as np

from ..core.variables import Constant, InferredDimension, Parameter
from ..default_options import default_override_or, get_default_override, is_default_override
from ..initializer import glorot_uniform
from ..ops import times
from .building import _as_tuple, _initializer_for, block, identity

__all__ = ["Dense", "Embedding"]


def Dense(shape, activation=default_override_or(identity), init=default_override_or(glorot_uniform()),
          input_rank=None, map_rank=None, bias=default_override_or(True), init_bias=default_override_or(0), name=""):
    """Fully connected layer: activation(x @ W + b), W of shape (input dims..., shape...), b of shape ``shape``.
    input_rank reduces only the last input_rank input axes; map_rank keeps the first map_rank axes."""
    activation = get_default_override(Dense, activation=activation)
    init = get_default_override(Dense, init=init)
    bias = get_default_override(Dense, bias=bias)
    init_bias = get_default_override(Dense, init_bias=init_bias)
    if input_rank is not None and map_rank is not None:
        raise ValueError("Dense: input_rank and map_rank cannot be specified at the same time.")
    output_shape = _output_shape(shape)
    output_rank = len(output_shape)
    input_shape = (InferredDimension,) * (input_rank if input_rank is not None else 1)
    infer_input_rank_to_map = -1 if input_rank is not None else (0 if map_rank is None else map_rank)
    W = Parameter(input_shape + output_shape, init=_initializer_for(init, {"output_rank": output_rank}), name="W")
    b = Parameter(output_shape, init=init_bias, name="b") if bias else None

    def dense(x):
        r = times(x, W, output_rank=output_rank, infer_input_rank_to_map=infer_input_rank_to_map)
        if b is not None:
            r = r + b
        if activation is not None:
            r = activation(r)
        return r
    return block(dense, "Dense", name)


def _output_shape(shape):
    """Dense's shape as a tuple of dimensions, taken as CNTK 2.7 takes it: numbers are truncated to ints (2.5 is
    2, True is 1); None is refused with a TypeError, other values with an OverflowError (CNTK's conversion to its
    dimension type), a negative dimension with a ValueError."""
    if shape is None:
        raise TypeError("Dense: shape must be an int or a tuple of ints (the output dimensions), got None")
    dims = []
    for d in _as_tuple(shape):
        if not isinstance(d, (int, float, np.integer, np.floating)) or not np.isfinite(d):
            raise OverflowError("Dense: the output dimensions must be ints, got %r in shape %r" % (d, shape))
        if d < 0:
            raise ValueError("Dense: the output dimensions must not be negative, got shape %r" % (shape,))
        dims.append(int(d))
    return tuple(dims)


def Embedding(shape=None, init=default_override_or(glorot_uniform()), weights=None, name=""):
    """Embedding lookup as a product with E (input dim, shape...): learnable, or the Constant ``weights``."""
    if not is_default_override(init) and weights is not None:
        raise ValueError("Embedding: init and weights options are mutually exclusive")
    if weights is None:
        if shape is None:
            raise ValueError("Embedding: output shape must be specified")
        init = get_default_override(Embedding, init=init)
        E = Parameter((InferredDimension,) + _as_tuple(shape), init=init, name="E")
    else:
        if shape is not None:
            raise ValueError("Embedding: output shape must not be specified when weights are given")
        E = Constant(np.asarray(weights), name="E")

    def embed(x):
        return times(x, E)
    return block(embed, "Embedding", name)
