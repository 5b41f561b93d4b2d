"""Python data that numpy can hold only as objects (None entries, ragged lists, object arrays) is refused wherever
CNTK 2.7 converts data (its asarray without a dtype), with its ValueErrors: Constant values, Parameter inits, op
operands and fed data. Cases and messages from CNTK 2.7."""
import numpy as np
import pytest

import cntk as C

LIST = "could not convert instance of type <class 'list'> to an array"
TUPLE = "could not convert instance of type <class 'tuple'> to an array"
x = C.input_variable(2)


@pytest.mark.parametrize("build, message", [
    (lambda: C.constant([None, 2]), LIST),
    (lambda: C.constant([[1, 2], [3]]), LIST),
    (lambda: C.Constant((None, 4)), TUPLE),
    (lambda: C.parameter(init=[None, 2]), LIST),
    (lambda: C.parameter(init=[[1, 2], [3]]), LIST),
    (lambda: C.Parameter((2,), init=[None, 1]), LIST),
    (lambda: C.times(x, [[None, 1], [2, 3]]), LIST),
    (lambda: C.plus(x, np.array([None, 1], dtype=object)), 'NumPy type "object" is not supported'),
    (lambda: C.element_times(x, [[1], [2, 3]]), "setting an array element with a sequence"),
    (lambda: C.splice(x, [None, 1]), LIST),
    (lambda: C.constant(np.array([1, 2], dtype=object)), 'data type "object" is not supported'),
    (lambda: C.plus(x, np.array([1, 2], dtype=object)), 'NumPy type "object" is not supported'),
    (lambda: (x + 1).eval({x: [[None, 1]]}), LIST),
])
def test_object_data_is_refused(build, message):
    with pytest.raises(ValueError, match=message.replace("(", "\\(").replace(")", "\\)")):
        build()


def test_plain_python_data_still_converts():
    assert C.constant([1, 2]).value.tolist() == [1.0, 2.0]
    assert C.times(x, [[0, 1], [2, 3]]).eval({x: [[1, 1]]}).tolist() == [[2.0, 4.0]]
    s = C.sequence.input_variable(2)
    assert [a.tolist() for a in (s * 1).eval({s: [[[1, 2], [3, 4]], [[5, 6]]]})] == [[[1, 2], [3, 4]], [[5, 6]]]
