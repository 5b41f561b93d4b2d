"""A colour transform whose three radii are 0 leaves the image as it is, as CNTK 2.7's reader does: an 8-bit image
stays 8-bit, so a scale after it is the 8-bit (OpenCV fixed-point) resize, not a resize of a float image (golden
values from CNTK 2.7 on the same files: the same numbers as without the colour transform)."""
import numpy as np
import pytest

import cntk.io.transforms as xforms
from tests.io._two_images import checksums, read_both, write_map_file

# two random images (40x40 and 27x35 from RandomState(0)) through color(0, 0, 0) then scale(W, H): per image, the
# sum of the values and the sum of value * (flat index % 97), as CNTK 2.7 reads them
ZERO_COLOR_THEN_SCALE_CNTK27 = {("linear", 20, 13): [[98021, 4668626], [101886, 4875759]],
                                ("linear", 81, 40): [[1221261, 58422339], [1259043, 60060060]],
                                ("cubic", 20, 13): [[98278, 4676443], [102392, 4904834]],
                                ("cubic", 81, 40): [[1221128, 58425106], [1261332, 60103380]]}


@pytest.mark.parametrize("key", sorted(ZERO_COLOR_THEN_SCALE_CNTK27))
def test_zero_radius_color_keeps_the_8_bit_image(tmp_path, key):
    interpolation, w, h = key
    transforms = [xforms.color(brightness_radius=0.0, contrast_radius=0.0, saturation_radius=0.0),
                  xforms.scale(width=w, height=h, channels=3, interpolations=interpolation)]
    rows = read_both(write_map_file(tmp_path), transforms)
    assert np.array_equal(rows, np.round(rows))
    assert checksums(rows) == ZERO_COLOR_THEN_SCALE_CNTK27[key]
