"""Generated data for the examples, in the file formats CNTK's own examples read (no downloads), and the reader
of the MNIST-shaped files that several examples train on.

The digit images are the tutorials' (tutorials/digits.py); everything else is made here.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tutorials"))
from digits import make_digits, write_ctf  # noqa: E402,F401  (MNIST-shaped CTF files)


def mnist_files(folder, train_count, test_count=500, names=("Train-28x28_cntk_text.txt", "Test-28x28_cntk_text.txt")):
    """(training file, test file): MNIST-shaped digits in CNTK Text Format, as CNTK's MNIST examples read them."""
    return tuple(write_ctf(os.path.join(folder, name), *make_digits(count, seed=seed))
                 for name, count, seed in zip(names, (train_count, test_count), (1, 2)))


def mnist_reader(path, is_training):
    """CNTK's MNIST reader: "features" (784 pixel values) and "labels" (one-hot, 10), shuffled and endless for
    training, one pass in order for testing."""
    import cntk as C
    streams = C.io.StreamDefs(features=C.io.StreamDef(field="features", shape=784),
                              labels=C.io.StreamDef(field="labels", shape=10))
    return C.io.MinibatchSource(C.io.CTFDeserializer(path, streams), randomize=is_training,
                                max_sweeps=C.io.INFINITELY_REPEAT if is_training else 1)


def cifar_like_images(folder, count, seed, size=32, classes=10):
    """``count`` colour PNG images (size x size) of ``classes`` kinds (a coloured shape on a noisy background,
    the colour and shape telling the class) and the map file CNTK's ImageDeserializer reads: one line per
    image, "path<TAB>label". Returns the map file's path."""
    from PIL import Image, ImageDraw
    rng = np.random.RandomState(seed)
    os.makedirs(folder, exist_ok=True)
    palette = [(220, 40, 40), (40, 180, 40), (40, 80, 220), (220, 200, 40), (200, 60, 200)]
    map_path = os.path.join(folder, "map.txt")
    with open(map_path, "w") as map_file:
        for i in range(count):
            label = rng.randint(classes)
            background = (rng.rand(size, size, 3) * 80).astype(np.uint8)
            image = Image.fromarray(background, "RGB")
            pen = ImageDraw.Draw(image)
            colour = tuple(int(c * rng.uniform(0.7, 1.0)) for c in palette[label % len(palette)])
            x0, y0 = rng.randint(2, size // 3, size=2)
            x1, y1 = x0 + rng.randint(size // 2, size - x0 - 1), y0 + rng.randint(size // 2, size - y0 - 1)
            if label < len(palette):
                pen.ellipse([x0, y0, x1, y1], fill=colour)
            else:
                pen.rectangle([x0, y0, x1, y1], fill=colour)
            path = os.path.join(folder, "img%05d.png" % i)
            image.save(path)
            map_file.write("%s\t%d\n" % (path, label))
    return map_path


def text_corpus(length, seed):
    """English-looking text from a small grammar, for the character-level language model."""
    rng = np.random.RandomState(seed)
    subjects = ["the cat", "a dog", "my friend", "the old man", "every child", "the teacher"]
    verbs = ["sees", "likes", "finds", "follows", "draws", "remembers"]
    objects = ["the ball", "a red bird", "the river", "some bread", "the little house", "a green tree"]
    sentences = []
    while sum(len(s) for s in sentences) < length:
        sentences.append("%s %s %s. " % (rng.choice(subjects), rng.choice(verbs), rng.choice(objects)))
    return "".join(sentences)[:length]
