"""Keras' CNTK backend sets the global option align_axis=1: indexing then counts the dynamic axes first
(golden shapes and values from CNTK 2.7)."""
import numpy as np
import pytest

import cntk as C


@pytest.fixture
def keras_mode():
    C.set_global_option('align_axis', 1)
    yield
    C.set_global_option('align_axis', 0)


def test_indexing_skips_the_dynamic_axes(keras_mode):
    x = C.input_variable((3, 4))
    assert (x[:, 1:3].shape, x[:, :, 2:4].shape, x[1:2].shape) == ((2, 4), (3, 2), (3, 1))
    d = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(x[:, 1:3].eval({x: d}), d[:, 1:3])
    s = C.sequence.input_variable(4)
    assert (s[:, 1:3].shape, s[:, :, 1:3].shape) == ((2,), (2,))
    with C.default_options(axis_offset=1):
        assert s[:, 1:3].shape == (2,)


def test_without_the_option_the_first_key_is_the_first_static_axis():
    x = C.input_variable((3, 4))
    assert x[:, 1:3].shape == (3, 2)
