"""The image reader reproduces CNTK 2.7 exactly (golden values from CNTK 2.7 on the same files): the order of
a randomized ImageDeserializer (every image is a chunk of CNTK's block randomizer) and the scale transform's
bilinear resize (OpenCV 3.1's fixed-point INTER_LINEAR, INTER_AREA for an exact 2x reduction)."""
import numpy as np
import pytest
from PIL import Image

import cntk as C
import cntk.io.transforms as xforms

# images 0..299 (4x4, red = i % 256, green = i // 256), randomize=True, five minibatches of 70
ORDER_CNTK27 = [21, 204, 129, 190, 283, 291, 251, 121, 119, 42, 191, 107, 89, 295, 78, 286, 74, 116, 233, 254, 120, 9, 58, 199, 229, 167, 115, 215, 79, 177, 112, 158, 168, 12, 55, 37, 220, 246, 188, 287, 236, 196, 218, 71, 96, 108, 181, 94, 51, 274, 184, 38, 173, 106, 143, 90, 149, 237, 146, 203, 160, 72, 43, 142, 32, 262, 54, 67, 81, 255, 200, 33, 201, 298, 114, 65, 194, 299, 145, 252, 13, 99, 179, 11, 124, 260, 0, 68, 277, 186, 63, 238, 261, 109, 139, 285, 162, 228, 4, 82, 175, 153, 185, 15, 110, 151, 288, 213, 279, 17, 70, 273, 223, 164, 53, 292, 174, 61, 45, 222, 147, 1, 209, 212, 230, 166, 34, 125, 52, 263, 296, 14, 157, 73, 289, 136, 48, 19, 60, 7, 265, 83, 156, 137, 132, 117, 169, 234, 85, 44, 131, 267, 268, 210, 130, 219, 36, 56, 284, 182, 123, 249, 3, 105, 69, 193, 154, 242, 227, 75, 18, 176, 247, 6, 122, 26, 77, 290, 8, 241, 159, 171, 95, 30, 41, 250, 275, 150, 57, 278, 216, 231, 165, 206, 84, 80, 64, 23, 87, 294, 76, 152, 59, 282, 16, 50, 49, 259, 31, 183, 92, 187, 29, 128, 104, 253, 272, 39, 172, 197, 47, 118, 248, 269, 40, 88, 138, 264, 141, 195, 244, 245, 24, 258, 97, 208, 22, 2, 144, 102, 257, 232, 20, 113, 276, 93, 170, 28, 243, 266, 297, 178, 161, 205, 207, 198, 133, 224, 148, 25, 225, 240, 256, 226, 180, 134, 27, 66, 239, 101, 100, 86, 293, 202, 280, 214, 103, 235, 91, 135, 10, 127, 211, 140, 98, 270, 155, 126, 5, 192, 46, 221, 217, 281, 189, 111, 62, 35, 271, 163, 144, 23, 91, 14, 124, 94, 118, 9, 277, 184, 72, 234, 2, 128, 11, 116, 40, 210, 67, 154, 22, 162, 83, 77, 164, 62, 207, 74, 166, 102, 224, 170, 114, 1, 150, 7, 73, 41, 113, 168, 294, 146, 181, 121, 49, 252, 185, 247, 60, 88]

# two random images (40x40 and 27x35 from RandomState(0)) scaled to WxH: per image, the sum of the values
# and the sum of value * (flat index % 97)
SCALED_CNTK27 = {"32x32": [[385654, 18411754], [398379, 18794330]], "20x13": [[98021, 4668626], [101886, 4875759]], "45x50": [[847314, 40486496], [876426, 41876430]], "17x29": [[185319, 8845904], [191050, 9109774]], "64x7": [[166443, 8022230], [175741, 8437025]], "20x20": [[150926, 7139672], [155212, 7310531]], "3x2": [[2329, 20918], [2417, 19701]], "80x81": [[2440043, 116766161], [2520770, 120966286]]}


def _map_file(tmp_path, images):
    lines = []
    for i, img in enumerate(images):
        path = str(tmp_path / ("%03d.png" % i))
        Image.fromarray(img, "RGB").save(path)
        lines.append("%s\t%d\n" % (path, i % 10))
    map_file = tmp_path / "map.txt"
    map_file.write_text("".join(lines))
    return str(map_file)


def test_randomized_order_is_cntk_27s(tmp_path):
    images = []
    for i in range(300):
        img = np.zeros((4, 4, 3), np.uint8)
        img[:, :, 0], img[:, :, 1] = i % 256, i // 256
        images.append(img)
    source = C.io.MinibatchSource(C.io.ImageDeserializer(_map_file(tmp_path, images), C.io.StreamDefs(
        features=C.io.StreamDef(field="image", transforms=[]), labels=C.io.StreamDef(field="label", shape=10))))
    order = []
    for _ in range(5):
        f = source.next_minibatch(70)[source.streams.features].asarray().reshape(-1, 3, 16)
        order += [int(v[2, 0] + 256 * v[1, 0]) for v in f]     # BGR: red is channel 2
    assert order == ORDER_CNTK27


@pytest.mark.parametrize("size", sorted(SCALED_CNTK27))
def test_linear_scale_is_cntk_27s(tmp_path, size):
    rng = np.random.RandomState(0)
    images = [rng.randint(0, 256, (40, 40, 3)).astype(np.uint8), rng.randint(0, 256, (27, 35, 3)).astype(np.uint8)]
    w, h = map(int, size.split("x"))
    source = C.io.MinibatchSource(C.io.ImageDeserializer(_map_file(tmp_path, images), C.io.StreamDefs(
        features=C.io.StreamDef(field="image", transforms=[
            xforms.scale(width=w, height=h, channels=3, interpolations="linear")]),
        labels=C.io.StreamDef(field="label", shape=10))), randomize=False)
    f = source.next_minibatch(2)[source.streams.features].asarray().reshape(2, -1).astype(np.int64)
    k = np.arange(f.shape[1]) % 97
    assert [[int(r.sum()), int((r * k).sum())] for r in f] == SCALED_CNTK27[size]


def test_every_image_is_decoded_with_three_channels(tmp_path):
    # CNTK 2.7 reads images as OpenCV's imread does by default: a grayscale PNG (mode L), one with alpha (LA)
    # and a palette PNG (P) give three equal channels, RGBA drops alpha (BGR order). A book's MNIST example
    # feeds grayscale digits without a transform to an input of shape (3, 28, 28). Sums from CNTK 2.7.
    a = (np.arange(64 * 48).reshape(48, 64) % 251).astype(np.uint8)
    files = {"g": Image.fromarray(a), "la": Image.fromarray(a).convert("LA"), "p": Image.fromarray(a).convert("P"),
             "rgba": Image.fromarray(np.stack([a, 255 - a, a // 2, a], -1), "RGBA")}
    expected = {"none": ((3, 48, 64), 1134810.0, 971730.0), "crop": ((3, 24, 24), 212118.0, 182090.0),
                "scale3": ((3, 24, 32), 284562.0, 243648.0)}
    transforms = {"none": [], "crop": [xforms.crop(crop_type="center", side_ratio=0.5)],
                  "scale3": [xforms.scale(32, 24, 3)]}
    for name, img in files.items():
        path = tmp_path / (name + ".png")
        img.save(str(path))
        map_file = tmp_path / (name + ".txt")
        map_file.write_text("%s\t0\n" % path)
        for kind, tr in transforms.items():
            source = C.io.MinibatchSource(C.io.ImageDeserializer(str(map_file), C.io.StreamDefs(
                f=C.io.StreamDef(field="image", transforms=tr), l=C.io.StreamDef(field="label", shape=2))),
                randomize=False)
            got = source.next_minibatch(1)[source.streams.f].asarray()[0, 0]
            shape, gray_sum, rgba_sum = expected[kind]
            assert got.shape == shape
            assert float(got.sum()) == (rgba_sum if name == "rgba" else gray_sum)
            if name != "rgba":
                assert (got[0] == got[1]).all() and (got[1] == got[2]).all()
