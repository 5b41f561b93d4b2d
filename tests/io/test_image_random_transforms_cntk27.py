"""The random image transforms draw CNTK 2.7's numbers: golden crops that CNTK 2.7 chose for the same images
(generated here), one [image, x, y, width, height, flipped] per output in minibatch order, and sums of its colour
jitter's outputs. The k-th image of every minibatch is drawn from the k-th position's own engine, which goes on
across minibatches and sweeps; a change of minibatch size drops a minibatch CNTK had read ahead, whose draws count."""
import numpy as np
import pytest
from PIL import Image

import cntk as C
import cntk.io.transforms as xforms
from cntk_compat.io import _image_ops

CROPS_CNTK27 = {
    's1': [[0,2,2,9,9,0], [1,1,3,9,9,0], [2,1,0,9,9,1], [3,2,0,9,9,0], [4,3,2,9,9,0], [5,3,0,9,9,1], [6,3,2,9,9,0],
        [7,3,1,9,9,1], [8,2,3,9,9,1], [9,1,3,9,9,1], [10,1,1,9,9,1], [11,2,2,9,9,0], [12,2,2,9,9,1],
        [13,0,0,9,9,1], [14,1,1,9,9,1], [15,1,3,9,9,1], [0,1,1,9,9,0], [1,0,1,9,9,1], [2,0,2,9,9,0], [3,0,0,9,9,1],
        [4,0,3,9,9,1], [5,2,1,9,9,0], [6,0,1,9,9,1], [7,0,0,9,9,1]],
    'uni': [[0,2,2,9,9,0], [1,3,2,9,9,0], [2,0,0,9,9,0], [3,2,2,9,9,1], [4,1,0,7,7,1], [5,1,1,9,9,1],
        [6,0,2,9,9,0], [7,0,0,12,12,0], [8,0,0,12,12,1], [9,4,2,8,8,0], [10,1,2,9,9,1], [11,2,5,7,7,1],
        [12,2,1,8,8,0], [13,0,1,11,11,1], [14,1,2,10,10,0], [15,0,5,7,7,0], [0,1,0,11,11,1], [1,1,5,6,6,1],
        [2,2,0,6,6,0], [3,1,2,9,9,1], [4,2,3,7,7,0], [5,0,3,6,6,0], [6,4,1,6,6,0], [7,0,2,9,9,1], [8,5,3,7,7,1],
        [9,0,1,11,11,0], [10,1,0,11,11,0], [11,1,1,11,11,0], [12,1,0,11,11,1], [13,0,0,10,10,1], [14,3,5,7,7,1],
        [15,4,0,8,8,0]],
    'aspU': [[0,8,3,7,6,0], [1,9,0,7,6,1], [2,11,1,5,9,0], [3,6,1,9,5,1], [4,1,2,9,8,0], [5,6,2,6,7,1],
        [6,2,0,5,6,1], [7,3,0,6,8,1], [8,4,4,7,6,1], [9,5,0,8,7,1], [10,0,5,8,5,1], [11,8,1,4,7,0], [12,1,1,6,5,1],
        [13,3,0,4,8,1], [14,3,3,10,6,0], [15,7,2,8,6,1], [0,3,2,6,7,0], [1,9,3,6,5,0], [2,1,1,6,7,1],
        [3,9,2,6,3,0]],
    'areaA': [[0,5,1,11,8,0], [1,7,0,9,8,1], [2,1,0,14,10,1], [3,1,1,15,6,1], [4,7,3,7,6,0], [5,4,0,9,10,0],
        [6,2,0,7,8,1], [7,4,0,9,5,1], [8,3,3,10,7,1], [9,1,2,13,7,0], [10,0,1,16,7,1], [11,8,1,5,8,0],
        [12,3,4,12,6,0], [13,3,0,4,10,1], [14,7,2,8,4,0], [15,4,1,9,8,0], [0,2,0,9,10,0], [1,7,0,7,10,0],
        [2,0,0,8,5,1], [3,4,0,9,10,1]],
    'rnd': [[1,3,4,7,7,0], [8,2,6,7,7,0], [2,3,1,7,7,1], [6,3,0,7,7,0], [7,3,5,7,7,1], [9,2,6,7,7,1],
        [0,3,3,7,7,1], [4,3,3,7,7,0], [3,6,6,7,7,0], [5,1,0,7,7,0], [0,3,2,7,7,0], [1,1,2,7,7,1], [2,1,4,7,7,0],
        [3,0,0,7,7,1], [4,2,3,7,7,0], [5,3,5,7,7,1], [6,1,4,7,7,0], [7,3,4,7,7,1], [8,5,4,7,7,0], [9,6,6,7,7,1],
        [6,3,2,7,7,0], [0,1,3,7,7,0], [4,0,3,7,7,0], [9,4,1,7,7,1]],
}
COLOUR_CNTK27 = [[53066.26,2493959.2], [65066.17,2813318.4], [49379.76,2201981.5], [35611.22,1614481.3],
        [61018.35,2744910.5], [53326.29,2425028.6], [60417.48,2657462.7], [67162.22,3064832.6],
        [70715.53,3192394.1], [80414.55,3649512.1], [54164.72,2444456.9], [54006.83,2580926.7]]

SCALE8 = dict(width=8, height=8, channels=3, interpolations="linear")
CASES = {   # images (count, width, height, seed), transforms, minibatch sizes, source options
    "s1": ((16, 12, 12, 0), [xforms.crop(crop_type="randomside", side_ratio=0.75)], [4] * 6, {}),
    "uni": ((16, 12, 12, 0), [xforms.crop(crop_type="randomside", side_ratio=(0.5, 1.0), jitter_type="uniratio"),
                              xforms.scale(**SCALE8)], [3, 5, 2, 8, 7, 1, 6], {}),
    "aspU": ((16, 16, 10, 1), [xforms.crop(crop_type="randomside", side_ratio=(0.5, 0.9), aspect_ratio=(0.5, 1.0),
                                           jitter_type="uniratio"), xforms.scale(**SCALE8)], [5] * 4, {}),
    "areaA": ((16, 16, 10, 1), [xforms.crop(crop_type="randomarea", area_ratio=(0.2, 0.9), aspect_ratio=(0.4, 1.0),
                                            jitter_type="uniratio"), xforms.scale(**SCALE8)], [5] * 4, {}),
    "rnd": ((10, 13, 13, 2), [xforms.crop(crop_type="randomside", side_ratio=0.5)], [4, 6, 4, 6, 4],
            dict(randomize=True, randomization_seed=5)),
}


def _images(tmp_path, count, width, height, seed):
    """Random RGB images as PNG files (label i % 10) and as BGR arrays."""
    lines, images = [], []
    for i in range(count):
        img = np.random.RandomState(seed * 1000 + i).randint(0, 256, (height, width, 3)).astype(np.uint8)
        path = str(tmp_path / ("%03d.png" % i))
        Image.fromarray(img, "RGB").save(path)
        lines.append("%s\t%d\n" % (path, i % 10))
        images.append(img[:, :, ::-1])
    (tmp_path / "map.txt").write_text("".join(lines))
    return str(tmp_path / "map.txt"), images


def _source(map_file, transforms, **options):
    options.setdefault("randomize", False)
    return C.io.MinibatchSource(C.io.ImageDeserializer(map_file, C.io.StreamDefs(
        features=C.io.StreamDef(field="image", transforms=transforms),
        labels=C.io.StreamDef(field="label", shape=10))), **options)


def _read(source, sizes):
    out = []
    for n in sizes:
        f = source.next_minibatch(n)[source.streams.features].asarray()
        out += [v.reshape(v.shape[-3:]) for v in f]
    return out


def _expected(images, crops, transforms):
    out = []
    for idx, x, y, w, h, flipped in crops:
        img = images[idx][y:y + h, x:x + w]
        img = img[:, ::-1] if flipped else img
        for t in transforms[1:]:
            img = _image_ops.scale(img, t)
        out.append(img.transpose(2, 0, 1).astype(np.float32))
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_random_crops_are_cntk_27s(tmp_path, case):
    (count, width, height, seed), transforms, sizes, options = CASES[case]
    map_file, images = _images(tmp_path, count, width, height, seed)
    got = _read(_source(map_file, transforms, **options), sizes)
    want = _expected(images, CROPS_CNTK27[case], transforms)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert np.array_equal(g, w), "output %d" % k


def test_colour_jitter_is_cntk_27s(tmp_path):
    map_file, _ = _images(tmp_path, 16, 12, 12, 0)
    got = _read(_source(map_file, [xforms.color(brightness_radius=0.3, contrast_radius=0.4, saturation_radius=0.5)]),
                [4, 4, 4])
    k = np.arange(3 * 12 * 12) % 97
    sums = [[float(v.astype(np.float64).sum()), float((v.reshape(-1).astype(np.float64) * k).sum())] for v in got]
    assert np.allclose(sums, COLOUR_CNTK27, rtol=1e-6, atol=0)


def test_checkpoint_continues_the_draws(tmp_path):
    map_file, images = _images(tmp_path, 16, 12, 12, 0)
    transforms = [xforms.crop(crop_type="randomside", side_ratio=0.75)]
    source = _source(map_file, transforms)
    _read(source, [4, 4])
    state = source.get_checkpoint_state()
    restored = _source(map_file, transforms)
    restored.restore_from_checkpoint(state)
    got = _read(restored, [4, 4])
    assert all(np.array_equal(g, w) for g, w in zip(got, _expected(images, CROPS_CNTK27["s1"][8:16], transforms)))
    # a new minibatch size after the restore drops the minibatch read ahead, as the uninterrupted run does
    restored.restore_from_checkpoint(state)
    assert all(np.array_equal(g, w) for g, w in zip(_read(restored, [3, 5]), _read(source, [3, 5])))
