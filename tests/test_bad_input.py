"""Bad input raises ValueError/TypeError naming the culprit, never a raw torch error."""
import re

import numpy as np
import pytest

import cntk as C


@pytest.fixture
def f():
    x = C.input_variable(2, name="x")
    y = C.input_variable(3, name="y")
    return x, y, C.splice(x, C.reduce_sum(y))


def test_missing_argument_is_named(f):
    x, y, fn = f
    with pytest.raises(ValueError, match=re.escape("Values for 1 required arguments 'Input('y', [#], [3])', that the "
                                                   "requested output(s) 'Output('Splice")):
        fn.eval({x: np.ones((2, 2), np.float32)})


def test_wrong_shape_states_expected_and_got(f):
    x, y, fn = f
    # CNTK 2.7's message names the input (repr) and both shapes
    with pytest.raises(ValueError, match=re.escape("The trailing dimensions of the Value shape '[2 x 3]' do not match "
                                                   "the Variable 'Input('x', [#], [2])' shape '[2]'.")):
        fn.eval({x: np.ones((2, 3), np.float32), y: np.ones((2, 3), np.float32)})


def test_non_numeric_data(f):
    x, y, fn = f
    # CNTK 2.7's ValueError (its message, after the argument's name)
    with pytest.raises(ValueError, match=r"argument 'x'.*only integer, bool, float32, float64 and float16 are "
                                         r"supported, you gave <U1"):
        fn.eval({x: np.array([["a", "b"]]), y: np.ones((1, 3), np.float32)})


def test_unknown_argument_name(f):
    x, y, fn = f
    with pytest.raises(ValueError, match=r"no argument named 'z'"):
        fn.eval({"z": np.ones((1, 2), np.float32)})


def test_shape_mismatch_at_graph_construction():
    with pytest.raises(ValueError, match=re.escape("Times: The 1 leading dimensions of the right operand with shape "
                                                   "'[3]' do not match the left operand's trailing dimensions with "
                                                   "shape '[2]'")):
        C.times(C.input_variable(2), C.parameter((3, 4)))
    with pytest.raises(ValueError, match=r"Plus: operand shapes"):
        C.plus(C.input_variable((2, 3)), C.input_variable((4,)))


def test_unbound_placeholder_cannot_be_evaluated():
    p = C.placeholder(name="p")
    g = C.exp(p)
    with pytest.raises(RuntimeError, match="Unknown DataType.*placeholder"):  # CNTK 2.7's RuntimeError
        g.eval({p: np.ones((1, 2), np.float32)})


def test_wrong_argument_count_on_call():
    @C.Function
    def add(a, b):
        return a + b
    with pytest.raises(TypeError, match="CNTK Function expected 2 arguments, got 1"):
        add(C.input_variable(2))
