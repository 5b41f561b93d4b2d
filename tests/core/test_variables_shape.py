"""Shapes given as numbers: CNTK 2.7 takes a float dimension, truncated, as a single number or in a tuple."""
import numpy as np
import pytest

import cntk as C


@pytest.mark.parametrize("shape, expected", [(5.0, (5,)), (5.5, (5,)), (np.float32(3.0), (3,)), ((2.0, 3), (2, 3)),
                                             (np.int64(4), (4,))])
def test_number_shapes(shape, expected):
    assert C.sequence.input_variable(shape).shape == expected
    assert C.input_variable(shape).shape == expected
    assert C.parameter(shape).shape == expected


def test_a_string_shape_is_refused():
    with pytest.raises(TypeError, match="expected an int or a tuple of ints, got '3'"):
        C.input_variable('3')
