"""NDArrayView.slice_view: start offsets for every axis, extent right-aligned (what UserLearners use to drop
the batch axis of an evaluated result)."""
import numpy as np
import pytest

from cntk.core import NDArrayView


def test_shorter_extent_drops_leading_axes():
    nd = NDArrayView.from_dense(np.asarray([[[[10, 20, 30], [40, 50, 60]]]], dtype=np.float32))
    np.testing.assert_array_equal(nd.slice_view([0, 0, 0, 0], [2, 3]).asarray(), [[10, 20, 30], [40, 50, 60]])


def test_offsets_select_the_block():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    nd = NDArrayView.from_dense(a)
    np.testing.assert_array_equal(nd.slice_view([1, 1, 2], [2, 2]).asarray(), a[1, 1:3, 2:4])
    np.testing.assert_array_equal(nd.slice_view([0, 1, 0], [1, 2, 4]).asarray(), a[0:1, 1:3, :])


@pytest.mark.parametrize("start, extent, message", [
    ([0, 0], [3, 4], "one entry per axis"),
    ([0, 0, 0], [1, 2, 3, 4], "more axes"),
    ([0, 2, 0], [2, 4], "outside the shape"),
])
def test_bad_arguments(start, extent, message):
    nd = NDArrayView.from_dense(np.zeros((2, 3, 4), np.float32))
    with pytest.raises(ValueError, match=message):
        nd.slice_view(start, extent)
