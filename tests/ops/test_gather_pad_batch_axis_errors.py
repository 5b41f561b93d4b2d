"""gather with indices outside the axis, and the exception types of pad, to_batch and unpack_batch, as CNTK 2.7
(golden values and types from it): an index outside [0, size) gathers zeros (negative ones too); a pad pattern
whose length differs from the rank, to_batch of an operand with dynamic axes and unpack_batch of a sequence are
RuntimeErrors. (Along another axis CNTK 2.7 reads uninitialised memory there, and its gradient aborts the
process; zeros and no gradient here.)"""
import numpy as np
import pytest

import cntk as C


def test_gather_outside_the_axis_gives_zeros():
    ref = C.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    idx = C.input_variable((2,))
    np.testing.assert_array_equal(C.gather(ref, idx).eval({idx: np.array([[0, 5]], np.float32)}),
                                  [[[0, 1, 2, 3], [0, 0, 0, 0]]])
    np.testing.assert_array_equal(C.gather(ref, idx).eval({idx: np.array([[0, -1]], np.float32)}),
                                  [[[0, 1, 2, 3], [0, 0, 0, 0]]])


def test_error_types():
    x = C.input_variable((2, 3))
    for pattern in ([(1, 1)], [(1, 1), (1, 1), (1, 1)]):
        with pytest.raises(RuntimeError):
            C.pad(x, pattern)
    for operand in (x, C.sequence.input_variable(2)):
        with pytest.raises(RuntimeError):
            C.to_batch(operand)
    with pytest.raises(RuntimeError):
        C.unpack_batch(C.sequence.input_variable(2))
    assert C.unpack_batch(x).shape == (C.FreeDimension, 2, 3)
