"""The native initializer constructors of cntk.cntk_py (CNTK's docs import them from _cntk_py) make the same
initializers as cntk.initializer's wrappers, with the native positional parameters and sentinel defaults."""
import numpy as np

import cntk as C
from _cntk_py import (bilinear_initializer, constant_initializer, glorot_uniform_initializer, he_normal_initializer,
                      normal_initializer, random_initializer_with_rank, truncated_normal_initializer,
                      uniform_initializer, xavier_initializer)


def _value(init, shape=(2, 3)):
    return C.parameter(shape, init=init).value


def test_constant_initializer_fills_and_keeps_inferred_dimensions():
    w = C.parameter((C.InferredDimension, 4), constant_initializer(0.1))
    assert w.shape == (-1, 4)
    np.testing.assert_array_equal(_value(constant_initializer(0.25)), np.full((2, 3), 0.25, np.float32))
    np.testing.assert_array_equal(_value(constant_initializer()), np.zeros((2, 3), np.float32))


def test_native_constructors_draw_what_the_wrappers_draw():
    pairs = [(uniform_initializer(1, 3), C.uniform(1, seed=3)),
             (normal_initializer(0.5, C.initializer.SentinelValueForInferParamInitRank,
                                 C.initializer.SentinelValueForInferParamInitRank, 4), C.normal(0.5, seed=4)),
             (glorot_uniform_initializer(1.0, -1, 2, 5), C.glorot_uniform(1.0, -1, 2, 5)),
             (xavier_initializer(2.0, seed=6), C.xavier(2.0, seed=6)),
             (he_normal_initializer(seed=7), C.he_normal(seed=7)),
             (truncated_normal_initializer(0.3, 8), C.truncated_normal(0.3, seed=8)),
             (random_initializer_with_rank(C.glorot_normal(seed=9), 1, 1),
              C.initializer.initializer_with_rank(C.glorot_normal(seed=9), 1, 1))]
    for native, wrapper in pairs:
        np.testing.assert_array_equal(_value(native), _value(wrapper))
    np.testing.assert_array_equal(_value(bilinear_initializer(3, 3), (1, 1, 3, 3)),
                                  _value(C.bilinear(3, 3), (1, 1, 3, 3)))
