"""The 'lanczos' scale transform is OpenCV 3.1's INTER_LANCZOS4 as CNTK 2.7's image reader computes it, bit for
bit (golden values from CNTK 2.7 on the same files): OpenCV's 8 weights (computed in double from x + 3 in float,
normalized in float32), the image's edge repeated outside it; for 8-bit images 11-bit fixed-point weights and
integer passes rounded (sum + 2^21) >> 22, for float images (after a colour jitter) float32 sums left to right."""
import pytest

import cntk.io.transforms as xforms
from tests.io._two_images import checksums, read_both, write_map_file

# two random images (40x40 and 27x35 from RandomState(0)) scaled to WxH with interpolations='lanczos': per image,
# the sum of the values and the sum of value * (flat index % 97), as CNTK 2.7 reads them
LANCZOS_8BIT_CNTK27 = {(20, 13): [[98239, 4670478], [102532, 4915574]],
                       (81, 40): [[1221258, 58428003], [1261711, 60124078]],
                       (8, 8): [[24749, 1178781], [26511, 1245382]],
                       (64, 70): [[1687724, 80934346], [1744627, 83543189]]}
# the same after color(brightness_radius=0.2, contrast_radius=0.3), which makes the image float
LANCZOS_FLOAT_CNTK27 = {(20, 13): [[105237.4907, 5001465.522], [122960.8259, 5891543.857]],
                        (81, 40): [[1307952.5347, 62572334.318], [1513080.6206, 72013573.353]],
                        (8, 8): [[26489.1114, 1261688.646], [31569.112, 1478602.123]],
                        (64, 70): [[1808466.5658, 86714428.696], [2092232.5197, 100225106.96]]}


@pytest.mark.parametrize("size", sorted(LANCZOS_8BIT_CNTK27))
def test_lanczos_scale_of_8_bit_images_is_cntk_27s(tmp_path, size):
    w, h = size
    rows = read_both(write_map_file(tmp_path), [xforms.scale(width=w, height=h, channels=3,
                                                             interpolations="lanczos")])
    assert checksums(rows) == LANCZOS_8BIT_CNTK27[size]


@pytest.mark.parametrize("size", sorted(LANCZOS_FLOAT_CNTK27))
def test_lanczos_scale_of_float_images_is_cntk_27s(tmp_path, size):
    w, h = size
    rows = read_both(write_map_file(tmp_path), [
        xforms.color(brightness_radius=0.2, contrast_radius=0.3, saturation_radius=0.0),
        xforms.scale(width=w, height=h, channels=3, interpolations="lanczos")])
    for (total, weighted), (cntk_total, cntk_weighted) in zip(checksums(rows), LANCZOS_FLOAT_CNTK27[size]):
        assert total == pytest.approx(cntk_total, abs=2e-4)
        assert weighted == pytest.approx(cntk_weighted, abs=2e-3)
