"""A colour transform whose three radii are 0 leaves the image as it is, as CNTK 2.7's reader does: an 8-bit image
stays 8-bit, so a scale after it is the 8-bit (OpenCV fixed-point) resize, not a resize of a float image (golden
values from CNTK 2.7 on the same files: the same numbers as without the colour transform)."""
import numpy as np
import pytest
from PIL import Image

import cntk as C
import cntk.io.transforms as xforms

# two random images (40x40 and 27x35 from RandomState(0)) through color(0, 0, 0) then scale(W, H): per image, the
# sum of the values and the sum of value * (flat index % 97), as CNTK 2.7 reads them
ZERO_COLOR_THEN_SCALE_CNTK27 = {("linear", 20, 13): [[98021, 4668626], [101886, 4875759]],
                                ("linear", 81, 40): [[1221261, 58422339], [1259043, 60060060]],
                                ("cubic", 20, 13): [[98278, 4676443], [102392, 4904834]],
                                ("cubic", 81, 40): [[1221128, 58425106], [1261332, 60103380]]}


def _map_file(tmp_path):
    rng = np.random.RandomState(0)
    images = [rng.randint(0, 256, (40, 40, 3)).astype(np.uint8), rng.randint(0, 256, (27, 35, 3)).astype(np.uint8)]
    lines = []
    for i, img in enumerate(images):
        path = str(tmp_path / ("%03d.png" % i))
        Image.fromarray(img, "RGB").save(path)
        lines.append("%s\t%d\n" % (path, i))
    (tmp_path / "map.txt").write_text("".join(lines))
    return str(tmp_path / "map.txt")


@pytest.mark.parametrize("key", sorted(ZERO_COLOR_THEN_SCALE_CNTK27))
def test_zero_radius_color_keeps_the_8_bit_image(tmp_path, key):
    interpolation, w, h = key
    transforms = [xforms.color(brightness_radius=0.0, contrast_radius=0.0, saturation_radius=0.0),
                  xforms.scale(width=w, height=h, channels=3, interpolations=interpolation)]
    source = C.io.MinibatchSource(C.io.ImageDeserializer(_map_file(tmp_path), C.io.StreamDefs(
        features=C.io.StreamDef(field="image", transforms=transforms),
        labels=C.io.StreamDef(field="label", shape=10))), randomize=False)
    f = source.next_minibatch(2)[source.streams.features].asarray().reshape(2, -1)
    assert np.array_equal(f, np.round(f))
    f = f.astype(np.int64)
    k = np.arange(f.shape[1]) % 97
    assert [[int(r.sum()), int((r * k).sum())] for r in f] == ZERO_COLOR_THEN_SCALE_CNTK27[key]
