"""The 'cubic' scale transform on 8-bit images is OpenCV 3.1's INTER_CUBIC as CNTK 2.7's image reader computes
it (golden values from CNTK 2.7 on the same files): 11-bit fixed-point weights of the A = -0.75 cubic, the
image's edge repeated outside it, and the float32 vertical pass of OpenCV's SSE2 kernel (the integer one for
the last width * channels % 8 values of a row)."""
import pytest

import cntk.io.transforms as xforms
from tests.io._two_images import checksums, read_both, write_map_file

# two random images (40x40 and 27x35 from RandomState(0)) scaled to WxH with interpolations='cubic':
# per image, the sum of the values and the sum of value * (flat index % 97), as CNTK 2.7 reads them
CUBIC_CNTK27 = {(8, 8): [[24749, 1178781], [26467, 1243881]],
                (32, 32): [[385861, 18436913], [398492, 18794186]],
                (20, 13): [[98278, 4676443], [102392, 4904834]],
                (64, 70): [[1688177, 80969952], [1744337, 83521065]],
                (81, 40): [[1221128, 58425106], [1261332, 60103380]],
                (7, 3): [[7766, 237264], [7547, 211906]]}


@pytest.mark.parametrize("size", sorted(CUBIC_CNTK27))
def test_cubic_scale_is_cntk_27s(tmp_path, size):
    w, h = size
    rows = read_both(write_map_file(tmp_path), [xforms.scale(width=w, height=h, channels=3, interpolations="cubic")])
    assert checksums(rows) == CUBIC_CNTK27[size]
