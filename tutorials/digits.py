"""MNIST-shaped data without downloading MNIST: 28 x 28 grey-scale digits drawn as pen strokes with random
size, slant, position, thickness and noise, written in the CNTK Text Format file layout CNTK's MNIST
tutorials read::

    |labels 0 0 0 1 0 0 0 0 0 0 |features 0 0 0 ... 255 ... 0

Not CNTK; the data the tutorials train on.
"""
import os

import numpy as np
from PIL import Image, ImageDraw

# Each digit is a few polylines in a unit box (x right, y down).
_ARC = [(np.cos(a) * 0.5 + 0.5, np.sin(a) * 0.5 + 0.5) for a in np.linspace(0, 2 * np.pi, 16)]
STROKES = {
    0: [[(0.5 + 0.35 * (x - 0.5) / 0.5, y) for x, y in _ARC]],
    1: [[(0.3, 0.25), (0.55, 0.0), (0.55, 1.0)]],
    2: [[(0.1, 0.25), (0.3, 0.02), (0.7, 0.02), (0.85, 0.3), (0.1, 1.0), (0.9, 1.0)]],
    3: [[(0.1, 0.05), (0.85, 0.05), (0.45, 0.45), (0.85, 0.65), (0.75, 0.95), (0.1, 0.95)]],
    4: [[(0.65, 1.0), (0.65, 0.0), (0.05, 0.7), (0.95, 0.7)]],
    5: [[(0.85, 0.02), (0.2, 0.02), (0.15, 0.45), (0.7, 0.45), (0.85, 0.75), (0.65, 0.98), (0.1, 0.95)]],
    6: [[(0.75, 0.0), (0.25, 0.45), (0.15, 0.8), (0.4, 1.0), (0.75, 0.9), (0.75, 0.6), (0.4, 0.5), (0.2, 0.7)]],
    7: [[(0.05, 0.02), (0.95, 0.02), (0.4, 1.0)], [(0.3, 0.5), (0.8, 0.5)]],
    8: [[(0.5, 0.5), (0.2, 0.25), (0.5, 0.0), (0.8, 0.25), (0.5, 0.5), (0.15, 0.75), (0.5, 1.0), (0.85, 0.75),
         (0.5, 0.5)]],
    9: [[(0.8, 0.45), (0.5, 0.55), (0.2, 0.35), (0.35, 0.05), (0.7, 0.05), (0.8, 0.45), (0.65, 1.0)]],
}


def draw_digit(digit, rng, size=28):
    """One 28 x 28 image (uint8, white pen on black) of ``digit`` with random style."""
    scale = rng.uniform(14, 20)
    slant = rng.uniform(-0.3, 0.3)
    x0 = rng.uniform(4, size - 4 - scale * 0.8)
    y0 = rng.uniform(3, size - 3 - scale)
    canvas = Image.new("L", (size, size), 0)
    pen = ImageDraw.Draw(canvas)
    width = int(rng.integers(2, 4))
    for stroke in STROKES[digit]:
        points = [(x0 + scale * 0.8 * (x + slant * (0.5 - y)), y0 + scale * y) for x, y in stroke]
        pen.line(points, fill=255, width=width)
    image = np.asarray(canvas, np.float32)
    image += rng.normal(0, 20, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


def make_digits(count, seed):
    """``count`` images (count, 28, 28) uint8 and their labels (count,) int."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, size=count)
    return np.stack([draw_digit(int(d), rng) for d in labels]), labels


def write_ctf(path, images, labels):
    """Writes the images and one-hot labels in the MNIST CTF layout; returns ``path``."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    one_hot = np.eye(10, dtype=np.int64)[labels]
    with open(path, "w") as f:
        for image, label in zip(images.reshape(len(images), -1), one_hot):
            f.write("|labels %s |features %s\n" % (" ".join(map(str, label)), " ".join(map(str, image))))
    return path
