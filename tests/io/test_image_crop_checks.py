"""The crop transform's ratios are checked as CNTK 2.7 checks them: the pairs when the transform is made (a tuple,
lower end first), the ranges and the choice of side or area ratio when a MinibatchSource opens the reader."""
import numpy as np
import pytest
from PIL import Image

import cntk as C
import cntk.io.transforms as xforms


@pytest.mark.parametrize("kwargs, message", [
    (dict(side_ratio=[0.5, 0.8]), "Input argument must be a number or a tuple of two numbers."),
    (dict(crop_size=[4, 4]), "Input argument must be a number or a tuple of two numbers."),
    (dict(area_ratio=(0.9, 0.5)), "such as the first number is smaller than or equal to the second number."),
])
def test_pairs_are_checked_when_the_crop_is_made(kwargs, message):
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        xforms.crop(crop_type="randomside", **kwargs)


@pytest.mark.parametrize("kwargs, message", [
    (dict(crop_type="randomside", side_ratio=1.5), "Invalid sideRatio value, must be > 0 and <= 1. sideMin must <= sideMax"),
    (dict(crop_type="randomarea", area_ratio=1.5), "Invalid areaRatio value, must be > 0 and <= 1. areaMin must <= areaMax"),
    (dict(crop_type="randomside", side_ratio=0.8, area_ratio=0.5), "sideRatio and areaRatio cannot be specified simultaneously"),
])
def test_ratios_are_checked_when_the_source_opens(tmp_path, kwargs, message):
    path = str(tmp_path / "a.png")
    Image.fromarray(np.zeros((6, 6, 3), np.uint8), "RGB").save(path)
    (tmp_path / "map.txt").write_text("%s\t0\n" % path)
    deserializer = C.io.ImageDeserializer(str(tmp_path / "map.txt"), C.io.StreamDefs(
        features=C.io.StreamDef(field="image", transforms=[xforms.crop(**kwargs), xforms.scale(4, 4, 3)]),
        labels=C.io.StreamDef(field="label", shape=2)))
    with pytest.raises(RuntimeError, match=message.replace(".", r"\.")):
        C.io.MinibatchSource(deserializer)
