"""CNTK's logical ops take a value > 0 as true (negatives are false); numbers from real CNTK 2.7."""
import numpy as np

import cntk_compat as C

A = np.array([[-1, 0, 2, -0.5]], np.float32)
B = np.array([[-1, 1, 0, 3]], np.float32)


def test_logical_ops_match_cntk27():
    np.testing.assert_array_equal(C.element_and(A, B).eval(), [[0, 0, 0, 0]])
    np.testing.assert_array_equal(C.element_or(A, B).eval(), [[0, 1, 1, 1]])
    np.testing.assert_array_equal(C.element_xor(A, B).eval(), [[0, 1, 1, 1]])
    np.testing.assert_array_equal(C.element_not(A).eval(), [[1, 1, 0, 1]])
