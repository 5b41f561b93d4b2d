"""The two random images of the image-transform tests (40x40 and 27x35, RGB, from RandomState(0)) and how those
tests read them: CNTK 2.7's outputs for them are stored as per-image checksums, the sum of the values and the sum
of value * (flat index % 97)."""
import numpy as np
from PIL import Image

import cntk as C


def write_map_file(tmp_path):
    rng = np.random.RandomState(0)
    images = [rng.randint(0, 256, (40, 40, 3)).astype(np.uint8), rng.randint(0, 256, (27, 35, 3)).astype(np.uint8)]
    lines = []
    for i, img in enumerate(images):
        path = str(tmp_path / ("%03d.png" % i))
        Image.fromarray(img, "RGB").save(path)
        lines.append("%s\t%d\n" % (path, i))
    (tmp_path / "map.txt").write_text("".join(lines))
    return str(tmp_path / "map.txt")


def read_both(map_file, transforms):
    """The two images as the reader delivers them after ``transforms``, one row each (float64)."""
    source = C.io.MinibatchSource(C.io.ImageDeserializer(map_file, C.io.StreamDefs(
        features=C.io.StreamDef(field="image", transforms=transforms),
        labels=C.io.StreamDef(field="label", shape=10))), randomize=False)
    return source.next_minibatch(2)[source.streams.features].asarray().reshape(2, -1).astype(np.float64)


def checksums(rows):
    """[[sum, weighted sum]] per row, as the CNTK 2.7 values are stored."""
    k = np.arange(rows.shape[1]) % 97
    return [[float(r.sum()), float((r * k).sum())] for r in rows]
