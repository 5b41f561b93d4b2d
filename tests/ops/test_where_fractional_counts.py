"""sequence.where of fractional conditions takes each step as often as CNTK 2.7 does: the conditions summed in
double precision, a step taken until the steps taken reach the running sum less a relative margin of the element
type's epsilon, a positive sum taking at least one step (outputs recorded from CNTK 2.7)."""
import numpy as np
import pytest

import cntk as C

CASES = [
    ([1.2] * 10, [0, 0, 1, 2, 3, 4, 5, 5, 6, 7, 8, 9]),
    ([0.5] * 6, [0, 2, 4]),
    ([0.3] * 7, [0, 3, 6]),
    ([1.5, 0.5, 2.5, 0.4], [0, 0, 2, 2, 2]),
    ([2.7, 0.2, 0.2], [0, 0, 0, 2]),
    ([0.6, 0.6, 0.6], [0, 1]),
    ([0.4] * 4, [0, 2]),
    ([1.0, 0.0, 2.0], [0, 2, 2]),
    ([0.49, 0.02, 0.49, 0.5], [0, 3]),
    ([1 / 3.] * 6, [0, 3]),
    ([0.2] * 10, [0, 5]),
    ([0.1] * 10, [0]),
    ([-1, 2, 0.5, -0.5, 1], [1, 2]),
    ([0.7, -0.5, 0.9], [0, 2]),
    ([1e-9, 0.9], [0]),
    ([3, 0, 0, 1], [0, 0, 0, 3]),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("condition, expected", CASES)
def test_fractional_conditions_repeat_steps_as_cntk(condition, expected, dtype):
    x = C.sequence.input_variable(1, dtype=dtype)
    out = C.sequence.where(x).eval({x: [np.array(condition, dtype).reshape(-1, 1),
                                       np.array([1, 0.5, 0.5], dtype).reshape(-1, 1)]})
    assert out[0].tolist() == expected
    assert out[1].tolist() == [0, 1]
