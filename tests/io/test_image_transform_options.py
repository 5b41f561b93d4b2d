"""Image transform options as CNTK 2.7's image reader reads them (golden values from CNTK 2.7 on the same
files): crop and jitter types and the interpolation in any letter case (CNTK's ConvNetLRN_CIFAR10_DataAug
example writes crop_type='RandomSide', jitter_type='uniRatio'), the scale mode in lower case only, and the
nearest-neighbour resize of OpenCV 3.1 (source pixel floor(x * src / dst))."""
import pytest

import cntk as C
import cntk.io.transforms as xforms
from tests.io._two_images import checksums, read_both, write_map_file
from cntk_compat.io.transforms import transform_config

# the two random images of test_image_reader_cntk27 (40x40 and 27x35 from RandomState(0)) scaled to WxH with
# interpolations='nearest': per image, the sum of the values and the sum of value * (flat index % 97)
NEAREST_CNTK27 = {(8, 8): [[23807, 1138854], [26198, 1272462]],
                  (32, 32): [[387774, 18414134], [401128, 19083467]],
                  (20, 13): [[98202, 4655128], [100134, 4835700]],
                  (64, 70): [[1689048, 81021183], [1749221, 83766659]]}
LINEAR_8x8_CNTK27 = [[24749, 1178781], [26100, 1229041]]


def _read(map_file, transforms):
    return checksums(read_both(map_file, transforms))


@pytest.mark.parametrize("size", sorted(NEAREST_CNTK27))
def test_nearest_scale_is_opencv_31s(tmp_path, size):
    w, h = size
    assert _read(write_map_file(tmp_path), [xforms.scale(width=w, height=h, channels=3, interpolations="nearest")]) \
        == NEAREST_CNTK27[size]


def test_interpolation_in_any_case(tmp_path):
    m = write_map_file(tmp_path)
    assert _read(m, [xforms.scale(width=8, height=8, channels=3, interpolations="Linear")]) == LINEAR_8x8_CNTK27
    assert _read(m, [xforms.scale(width=8, height=8, channels=3, interpolations="NEAREST")]) == NEAREST_CNTK27[(8, 8)]


def test_crop_and_jitter_types_in_any_case(tmp_path):
    m = write_map_file(tmp_path)
    t = xforms.crop(crop_type="RandomSide", side_ratio=0.8, jitter_type="uniRatio")
    # CNTK's transform dictionary keeps the texts as written
    cfg = transform_config(t)
    assert cfg["cropType"] == "RandomSide" and cfg["jitterType"] == "uniRatio"
    f = C.io.MinibatchSource(C.io.ImageDeserializer(m, C.io.StreamDefs(
        features=C.io.StreamDef(field="image", transforms=[t, xforms.scale(width=8, height=8, channels=3)]),
        labels=C.io.StreamDef(field="label", shape=10))), randomize=False).next_minibatch(2)
    assert len(f) == 2
    center = [xforms.crop(crop_type="CENTER", crop_size=8)]
    assert _read(m, center) == _read(m, [xforms.crop(crop_type="center", crop_size=8)])


def test_scale_mode_only_in_lower_case():
    with pytest.raises(ValueError, match="all lower case"):
        xforms.scale(width=8, height=8, channels=3, scale_mode="Pad")
    with pytest.raises(ValueError):
        xforms.crop(crop_type="foo")
    with pytest.raises(ValueError):
        xforms.crop(crop_type="randomside", jitter_type="Bar")
