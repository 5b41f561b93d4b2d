"""transpose's permutation as CNTK 2.7 checks it (values from CNTK 2.7): its elements index the permutation's own
length (negative ones from its end), duplicates and an int are refused at once; a permutation longer than the
operand's rank is refused while building (CNTK's native RuntimeError); a shorter one builds, permuting the last
axes, and is refused when the graph is evaluated (ValueError)."""
import numpy as np
import pytest

import cntk as C


def _data():
    return np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)


@pytest.mark.parametrize("perm, message", [((0, 0, 1), "duplicate item in permutation"),
                                           ((3, 0, 1), "invalid permutation element"),
                                           ((-4, 0, 1), "invalid permutation element")])
def test_bad_permutations_are_value_errors(perm, message):
    with pytest.raises(ValueError, match=message):
        C.transpose(C.input_variable((2, 3, 4)), perm)


def test_an_int_is_not_a_permutation():
    with pytest.raises(TypeError, match="transpose expects a permutation; to swap two axes use swapaxes"):
        C.transpose(C.input_variable((2, 3)), 1)


def test_negative_elements_count_from_the_permutations_end():
    assert C.transpose(C.input_variable((2, 3, 4)), (-1, 0, 1)).shape == (4, 2, 3)


def test_a_longer_permutation_is_refused_while_building():
    with pytest.raises(RuntimeError, match="vector::_M_range_check"):
        C.transpose(C.input_variable((2, 3, 4, 5)), (4, 3, 2, 0, 1))


@pytest.mark.parametrize("make, feed, shape", [
    (lambda: C.constant(_data()), None, (2, 5, 3, 4)),
    (lambda: C.parameter(init=_data()), None, (2, 5, 3, 4)),
    (lambda: C.input_variable((3, 4, 5)), lambda: _data()[:1], (3, 5, 4)),
    (lambda: C.sequence.input_variable((3, 4, 5)), lambda: [_data()[0]], (3, 5, 4)),
])
def test_a_shorter_permutation_builds_on_the_last_axes_and_is_refused_when_evaluated(make, feed, shape):
    x = make()
    f = C.transpose(x, (2, 0, 1) if len(x.shape) == 4 else (1, 0))
    assert f.shape == shape
    with pytest.raises(ValueError, match="TransposeDimensions operation: Specified permutation doesn't match "
                                         "operand"):
        f.eval({x: feed()} if feed else {})


def test_a_full_permutation_still_evaluates():
    w = C.input_variable((2, 3, 4, 5))
    f = C.transpose(w, (3, 2, 0, 1))
    assert f.shape == (5, 4, 2, 3)
    np.testing.assert_array_equal(f.eval({w: _data()[None]})[0], _data().transpose(3, 2, 0, 1))
    assert C.transpose(C.input_variable((2, 3)), (1, 0)).root_function.attributes["axisVec"] == \
        [("ordered", "static", 1), ("ordered", "static", 0)]
