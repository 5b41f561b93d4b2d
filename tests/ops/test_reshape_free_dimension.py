"""reshape to a shape holding FreeDimension (-3), as Keras' CNTK backend asks for (expand_dims of a placeholder
of free dimensions): CNTK 2.7 keeps the free dimension and sizes it from the data; a new shape whose data would
have to size two dimensions is refused when evaluated (ValueError), and a free dimension asked of an input of
known size is refused when made (RuntimeError). Shapes and results printed by CNTK 2.7."""
import numpy as np
import pytest

import cntk as C

FREE = C.FreeDimension


@pytest.mark.parametrize("new, shape, result", [
    ((1, FREE), (1, FREE), (2, 1, 4)),
    ((FREE, 1), (FREE, 1), (2, 4, 1)),
    ((1, -1), (1, FREE), (2, 1, 4)),
])
def test_one_free_dimension_is_sized_by_the_data(new, shape, result):
    x = C.input_variable((FREE,))
    r = C.reshape(x, new)
    assert r.shape == shape
    assert r.eval({x: np.arange(8, dtype=np.float32).reshape(2, 4)}).shape == result


@pytest.mark.parametrize("new, shape, result", [((FREE, 3, 1), (FREE, 3, 1), (1, 4, 3, 1)),
                                                ((1, FREE, 3), (1, FREE, 3), (1, 1, 4, 3))])
def test_free_dimension_beside_static_ones(new, shape, result):
    y = C.input_variable((FREE, 3))
    r = C.reshape(y, new)
    assert r.shape == shape
    assert r.eval({y: np.arange(12, dtype=np.float32).reshape(1, 4, 3)}).shape == result


@pytest.mark.parametrize("new, shape", [((-1, FREE), (FREE, FREE)), ((FREE, -1), (FREE, FREE)),
                                        ((FREE, FREE), (FREE, FREE))])
def test_two_free_dimensions_are_refused_when_evaluated(new, shape):
    x = C.input_variable((FREE,))
    r = C.reshape(x, new)
    assert r.shape == shape
    with pytest.raises(ValueError, match="free"):
        r.eval({x: np.ones((2, 4), np.float32)})


def test_two_inferred_dimensions_are_refused_when_made():
    with pytest.raises(ValueError):
        C.reshape(C.input_variable((FREE,)), (-1, -1))


@pytest.mark.parametrize("new", [(FREE, 2), (2, FREE), (FREE,), (-1, FREE)])
def test_free_dimension_of_a_known_input_is_refused_when_made(new):
    with pytest.raises(RuntimeError, match="free dimension"):
        C.reshape(C.input_variable((4,)), new)
