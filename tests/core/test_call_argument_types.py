"""Calling a Function on Variables checks them against its inputs' types as CNTK 2.7 does (messages observed
under CNTK 2.7)."""
import re

import numpy as np
import pytest

import cntk as C


def _model(name=""):
    x = C.input_variable(2, name=name)
    return C.layers.Dense(3)(x)


@pytest.mark.parametrize("arg, shown", [
    (lambda: C.input_variable(3), "Tensor[3]"),
    (lambda: C.sequence.input_variable(2), "Sequence[Tensor[2]]"),
    (lambda: C.input_variable(2, is_sparse=True), "SparseTensor[2]"),
    (lambda: C.input_variable(2, dtype=np.float64), "Tensor[np.float64,2]"),
])
def test_a_variable_of_another_type_is_refused(arg, shown):
    with pytest.raises(TypeError, match=re.escape(
            "positional argument 0's type Tensor[2] is incompatible with the type %s of the passed Variable" % shown)):
        _model()(arg())


def test_a_named_input_is_named_in_the_message():
    with pytest.raises(TypeError, match=re.escape("argument feat's type Tensor[2] is incompatible with the type "
                                                  "Tensor[3] of the passed Variable")):
        _model("feat")(C.input_variable(3))


def test_extra_leading_axes_and_values_without_dynamic_axes_are_accepted():
    assert _model()(C.input_variable((4, 2))).output.shape == (4, 3)
    assert _model()(C.constant(np.ones(2, np.float32))).output.dynamic_axes == ()


def test_placeholders_take_any_type():
    f = C.layers.Dense(3)
    assert f(C.sequence.input_variable(5)).output.shape == (3,)


def test_the_number_of_arguments_is_checked_with_cntks_message():
    with pytest.raises(TypeError, match=re.escape("CNTK Function expected 1 arguments, got 2")):
        _model()(C.input_variable(2), C.input_variable(2))


def test_something_that_is_not_a_variable_is_refused_in_a_symbolic_call():
    x, y = C.input_variable(2), C.input_variable(2)
    f = C.plus(x, y)
    with pytest.raises(TypeError, match="positional argument 1 was passed an object that is not a Variable or "
                                        "Function"):
        f(C.input_variable(2), np.ones(2, np.float32))
