"""The 'linear' and 'cubic' scale transforms of a float image (after a colour jitter, which makes the image float as
in CNTK) are OpenCV 3.1's float resizes as CNTK 2.7's image reader computes them, bit for bit (golden values from
CNTK 2.7 on the same files and the same colour draws): float32 weights (1 - f, f for linear; the A = -0.75 cubic's
for cubic), the image's edge outside it, the terms summed left to right; an exact 2x linear reduction is
INTER_AREA's (((a + b) + c) + d) * 0.25."""
import pytest

import cntk.io.transforms as xforms
from tests.io._two_images import checksums, read_both, write_map_file

# two random images (40x40 and 27x35 from RandomState(0)) through color(brightness 0.2, contrast 0.3) then
# scale(W, H): per image, the sum of the values and the sum of value * (flat index % 97), as CNTK 2.7 reads them
COLOR_THEN_SCALE_CNTK27 = {
    ("linear", 20, 13): [[105046.0681, 5002728.544], [122307.4848, 5849357.52]],
    ("linear", 81, 40): [[1308011.0856, 62568909.635], [1511649.8555, 72063050.704]],
    ("linear", 20, 20): [[161480.965, 7639926.946], [186452.7616, 8786428.563]],
    ("cubic", 20, 13): [[105234.1169, 5006737.98], [122821.2667, 5880372.211]],
    ("cubic", 81, 40): [[1307942.6736, 62575252.564], [1512867.0376, 72021931.125]]}


@pytest.mark.parametrize("key", sorted(COLOR_THEN_SCALE_CNTK27))
def test_float_scale_is_cntk_27s(tmp_path, key):
    interpolation, w, h = key
    transforms = [xforms.color(brightness_radius=0.2, contrast_radius=0.3, saturation_radius=0.0),
                  xforms.scale(width=w, height=h, channels=3, interpolations=interpolation)]
    rows = read_both(write_map_file(tmp_path), transforms)
    for (total, weighted), (cntk_total, cntk_weighted) in zip(checksums(rows), COLOR_THEN_SCALE_CNTK27[key]):
        assert total == pytest.approx(cntk_total, abs=2e-4)
        assert weighted == pytest.approx(cntk_weighted, abs=2e-3)
