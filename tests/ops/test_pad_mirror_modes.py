"""pad with REFLECT_PAD / SYMMETRIC_PAD matches numpy's reflect / symmetric modes (both share one mirror rule)."""
import numpy as np
import pytest

import cntk as C


@pytest.mark.parametrize("mode, numpy_mode", [(C.ops.REFLECT_PAD, "reflect"), (C.ops.SYMMETRIC_PAD, "symmetric")])
def test_mirror_padding_matches_numpy(mode, numpy_mode):
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    pattern = [(1, 2), (3, 0)]
    np.testing.assert_array_equal(C.pad(C.constant(x), pattern, mode=mode).eval(), np.pad(x, pattern, mode=numpy_mode))


def test_reflect_skips_the_edge_and_symmetric_repeats_it():
    x = C.constant(np.array([1, 2, 3], np.float32))
    np.testing.assert_array_equal(C.pad(x, [(2, 1)], mode=C.ops.REFLECT_PAD).eval(), [3, 2, 1, 2, 3, 2])
    np.testing.assert_array_equal(C.pad(x, [(2, 1)], mode=C.ops.SYMMETRIC_PAD).eval(), [2, 1, 1, 2, 3, 3])
