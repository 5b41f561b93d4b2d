"""Ops on numpy data alone are typed as CNTK 2.7 types them: an op of several operands keeps the widest float type
among the numpy arrays (float64 over float32 over float16; Python numbers and lists count as float32), while
single-operand ops, splice, element_select and the logical ops convert numpy data to float32."""
import numpy as np
import pytest

import cntk as C

A = 1. * np.reshape(np.arange(8), (2, 2, 2))

CASES = [  # (expression, CNTK 2.7's result dtype)
    (lambda: C.times(A, A, output_rank=1), np.float64),
    (lambda: C.plus(A, 1), np.float64),
    (lambda: C.plus(1, 2), np.float32),
    (lambda: C.sigmoid(A), np.float32),
    (lambda: C.plus(A, np.float32(1)), np.float64),
    (lambda: C.plus(A.astype(np.float32), A), np.float64),
    (lambda: C.reduce_sum(A), np.float32),
    (lambda: C.splice(A, A), np.float32),
    (lambda: C.element_times([1., 2.], np.array([1., 2.])), np.float64),
    (lambda: C.reshape(A, (8,)), np.float32),
    (lambda: C.plus(A.astype(np.float16), A.astype(np.float16)), np.float16),
    (lambda: C.cross_entropy_with_softmax(A[0], A[1]), np.float64),
    (lambda: C.plus(C.constant(A.astype(np.float32)), A), np.float32),
    (lambda: C.element_select(A, A, A), np.float32),
    (lambda: C.element_and(A, A), np.float32),
    (lambda: C.clip(A, A, A), np.float64),
    (lambda: C.squared_error(A, A), np.float64),
]


@pytest.mark.parametrize("make, dtype", CASES)
def test_numpy_operands_take_cntks_precision(make, dtype):
    f = make()
    assert f.output.dtype == dtype
    assert f.eval().dtype == dtype


def test_times_of_float64_arrays_gives_cntks_values():
    np.testing.assert_array_equal(C.times(A, A, output_rank=1).eval(), [[28., 34.], [76., 98.]])
