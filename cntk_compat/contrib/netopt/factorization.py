"""Factoring Dense layers (cntk.contrib.netopt.factorization, CNTK 2.7's API).

``factor_dense`` replaces each selected Dense layer, x -> activation(x W + b), by a "DenseFactored" block
x -> (x W1) W2 + b, where W ~ W1 W2 with W1 of k columns: by default the rank-k truncated SVD of W, k given by the
user's projection_function(W). As in CNTK 2.7, the factored block applies no activation, and its parameters take
the shapes of the arrays the factorization gives (a k beyond W's rank leaves W1 and W2 at W's rank).
"""
import numpy as np

import cntk_compat as C
from cntk_compat.core.function import Function
from cntk_compat.layers.blocks import identity
from cntk_compat.misc.converter import convert
from cntk_compat.ops.functions import BlockFunction
from cntk_compat.default_options import default_override_or, get_default_override

__all__ = ["svd_subprojection", "factor_dense", "dense_factored"]


def svd_subprojection(matrix, k):
    """(W1, W2): the first k left singular vectors of ``matrix``, and the first k singular values times the first
    k right singular vectors, so that W1 W2 is the best rank-k approximation of ``matrix``."""
    left, singular, right = np.linalg.svd(matrix, full_matrices=False)
    return np.ascontiguousarray(left[:, :k]), np.dot(np.diag(singular[:k]), right[:k, :])


def factor_dense(model, projection_function=None, filter_function=None, factor_function=None):
    """``model`` with its Dense layers (those for which ``filter_function(layer)`` is True, if given) factored:
    k = projection_function(W) (default: min of W's dimensions), (W1, W2) = factor_function(W, k) (default:
    svd_subprojection)."""
    if factor_function is None and projection_function is None:
        raise ValueError("Dense: default factor function (svd) requires a projection_function.")

    def selected(f):
        return isinstance(f, Function) and f.op_name == 'Dense' and f.is_block and \
            (filter_function(f) if filter_function else True)

    def factored(layer):
        W, b = layer.W.value, layer.b.value
        rows, columns = W.shape
        k = projection_function(W) if projection_function else min(rows, columns)
        W1, W2 = factor_function(W, k) if factor_function else svd_subprojection(W, k)
        return dense_factored((int(k), int(columns)), init={'W1': W1, 'W2': W2}, activation=None,
                              init_bias=b, name='DenseFactored')(layer.inputs[2])

    return convert(model, selected, factored)


def dense_factored(shapes, activation=default_override_or(identity), init={'W1': None, 'W2': None},
                   input_rank=None, map_rank=None, bias=default_override_or(True),
                   init_bias=default_override_or(0), name=''):
    """A layer x -> activation((x W1) W2 + b), W1 (input dimension, shapes[0]) and W2 (shapes[0], shapes[1]),
    initialized from init['W1'] and init['W2'] (arrays give the parameters their own shapes). Only a rank-1
    input is supported (input_rank and map_rank must be None)."""
    assert input_rank is None and map_rank is None and all(isinstance(s, int) for s in list(shapes))
    activation = get_default_override(C.layers.Dense, activation=activation)
    bias = get_default_override(C.layers.Dense, bias=bias)
    init_bias = get_default_override(C.layers.Dense, init_bias=init_bias)
    inner, outer = (shapes[0],), (shapes[1],)
    W1 = C.Parameter((C.InferredDimension,) + inner, init=init['W1'], name='W1')
    W2 = C.Parameter(inner + outer, init=init['W2'], name='W2')
    b = C.Parameter(outer, init=init_bias, name='b') if bias else None

    @BlockFunction('DenseFactored', name)
    def dense(x):
        r = C.times(C.times(x, W1), W2)
        if b:
            r = r + b
        if activation is not None:
            r = activation(r)
        return r
    return dense
