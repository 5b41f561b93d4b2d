"""Elementwise ops whose operands' static shapes do not broadcast are refused with a RuntimeError, as CNTK 2.7
refuses them while the graph is built ("Binary elementwise operation Plus: Left operand ... is not compatible
with right operand ..."; measured with CNTK 2.7 for each op below). The error stays a ValueError too."""
import numpy as np
import pytest

import cntk as C

CASES = {
    "plus_constant": lambda: C.plus(C.input_variable((4, 5)), C.constant(np.ones((3, 1), np.float32))),
    "element_times": lambda: C.element_times(C.input_variable((2, 3)), C.input_variable((4, 3))),
    "minus_numpy": lambda: C.input_variable((3,)) - np.ones((2,), np.float32),
    "equal": lambda: C.equal(C.input_variable((3,)), C.input_variable((2,))),
    "squared_error": lambda: C.squared_error(C.input_variable((3,)), C.input_variable((2,))),
    "past_value_initial_state": lambda: C.sequence.past_value(C.sequence.input_variable((3,)),
                                                              C.constant(np.ones((2,), np.float32))),
    "element_select": lambda: C.element_select(C.input_variable((3,)), C.input_variable((2,)),
                                               C.input_variable((3,))),
    # a (3,3) kernel padded on the channel and height axes only keeps the width shrinking: (192, 64, 62) + (64,1,1)
    "conv_output_plus_bias": lambda: C.convolution(C.constant(np.ones((64, 3, 3, 3), np.float32)),
                                                   C.input_variable((3, 64, 64)),
                                                   auto_padding=[True, True, False])
                                     + C.constant(np.ones((64, 1, 1), np.float32)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_incompatible_elementwise_shapes_raise_runtime_error(name):
    with pytest.raises(RuntimeError) as info:
        CASES[name]()
    assert isinstance(info.value, ValueError)
    assert "cannot be broadcast" in str(info.value)


def test_compatible_shapes_still_broadcast():
    r = (C.input_variable((3, 1)) + C.constant(np.ones((1, 4), np.float32)))
    assert r.shape == (3, 4)
