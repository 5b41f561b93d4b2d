"""A schedule's epoch_size, minibatch_size or (count, value) count that is not a non-negative integer is CNTK 2.7's
NotImplementedError (its native constructor has no overload for it; session 20 sweep, read from CNTK 2.7), and
still a ValueError."""
import pytest

import cntk as C


@pytest.mark.parametrize("make", [
    lambda: C.learning_parameter_schedule([0.1, 0.2], epoch_size=-1),
    lambda: C.learning_parameter_schedule([0.1], epoch_size=1.5),
    lambda: C.learning_parameter_schedule(0.1, minibatch_size=-1),
    lambda: C.learning_parameter_schedule([(-1, 0.1)]),
    lambda: C.momentum_schedule([0.9], epoch_size=-1),
    lambda: C.sgd([C.parameter(2)], 0.1, minibatch_size=-1),
])
def test_bad_counts(make):
    for error in (NotImplementedError, ValueError):
        with pytest.raises(error):
            make()


def test_good_counts():
    assert C.learning_parameter_schedule([(0, 0.1)]) is not None
    s = C.learning_parameter_schedule([0.2, 0.1], epoch_size=4, minibatch_size=2)
    assert (s[0], s[4], s.minibatch_size) == (0.2, 0.1, 2)
