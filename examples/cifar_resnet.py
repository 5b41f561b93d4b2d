"""A CIFAR-shaped ResNet: 32 x 32 colour PNGs listed in a map file, read by ImageDeserializer with CNTK's
image transforms (random-side crop, scale, mean subtraction from an OpenCV XML mean file), a small residual
network with batch normalization, trained with momentum SGD by training_session.

    python examples/cifar_resnet.py [--quick] [--out DIR]
"""
import argparse
import os

import numpy as np
from PIL import Image

import cntk as C
import cntk.io.transforms as xforms
from cntk.io import ImageDeserializer, MinibatchSource, StreamDef, StreamDefs, INFINITELY_REPEAT
from cntk.layers import AveragePooling, BatchNormalization, Convolution, Dense
from cntk.train.training_session import TestConfig, training_session

import _synthetic

SIZE, CHANNELS, CLASSES = 32, 3, 10


def write_mean_file(map_file, path):
    """The mean image of the training set, in the OpenCV XML layout CNTK's mean transform reads (HWC, BGR)."""
    paths = [line.split("\t")[0] for line in open(map_file)]
    mean = np.mean([np.asarray(Image.open(p).convert("RGB"), np.float32)[:, :, ::-1] for p in paths], axis=0)
    with open(path, "w") as f:
        f.write('<?xml version="1.0" ?>\n<opencv_storage>\n<Channel>%d</Channel>\n<Row>%d</Row>\n<Col>%d</Col>\n'
                '<MeanImg type_id="opencv-matrix">\n<rows>1</rows>\n<cols>%d</cols>\n<dt>f</dt>\n<data>%s</data>\n'
                '</MeanImg>\n</opencv_storage>\n'
                % (CHANNELS, SIZE, SIZE, mean.size, " ".join("%.3f" % v for v in mean.reshape(-1))))
    return path


def create_source(map_file, mean_file, train):
    transforms = []
    if train:
        transforms.append(xforms.crop(crop_type="randomside", side_ratio=0.8))
    transforms += [xforms.scale(width=SIZE, height=SIZE, channels=CHANNELS, interpolations="linear"),
                   xforms.mean(mean_file)]
    streams = StreamDefs(features=StreamDef(field="image", transforms=transforms),
                         labels=StreamDef(field="label", shape=CLASSES))
    return MinibatchSource(ImageDeserializer(map_file, streams), randomize=train,
                           max_sweeps=INFINITELY_REPEAT if train else 1)


def conv_bn(x, filters, strides=(1, 1), activation=C.relu):
    c = Convolution((3, 3), filters, strides=strides, pad=True, bias=False, activation=None,
                    init=C.he_normal())(x)
    r = BatchNormalization(map_rank=1, normalization_time_constant=4096)(c)
    return activation(r) if activation else r


def residual_block(x, filters, strides=(1, 1)):
    """Two 3x3 conv+BN layers and a shortcut (a strided 1x1 projection when the shape changes)."""
    h = conv_bn(conv_bn(x, filters, strides), filters, activation=None)
    shortcut = x
    if strides != (1, 1) or x.shape[0] != filters:
        shortcut = BatchNormalization(map_rank=1)(
            Convolution((1, 1), filters, strides=strides, bias=False, activation=None, init=C.he_normal())(x))
    return C.relu(h + shortcut)


def resnet(x, widths):
    h = conv_bn(x, widths[0])
    for i, width in enumerate(widths):
        h = residual_block(h, width, strides=(1, 1) if i == 0 else (2, 2))
    h = AveragePooling((SIZE // 2 ** (len(widths) - 1),) * 2)(h)
    return Dense(CLASSES, activation=None)(h)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=os.path.join("example_output", "cifar_resnet"))
    args = parser.parse_args()
    C.cntk_py.set_fixed_random_seed(1)
    train_count = 256 if args.quick else 5000
    train_map = _synthetic.cifar_like_images(os.path.join(args.out, "train"), train_count, seed=1)
    test_map = _synthetic.cifar_like_images(os.path.join(args.out, "test"), 100 if args.quick else 1000, seed=2)
    mean_file = write_mean_file(train_map, os.path.join(args.out, "mean.xml"))

    x = C.input_variable((CHANNELS, SIZE, SIZE))
    y = C.input_variable(CLASSES)
    z = resnet(x, (8, 16) if args.quick else (16, 32, 64))
    loss, error = C.cross_entropy_with_softmax(z, y), C.classification_error(z, y)
    C.logging.log_number_of_parameters(z)

    epochs = 2 if args.quick else 20
    learner = C.momentum_sgd(z.parameters, C.learning_parameter_schedule_per_sample(0.004),
                             C.momentum_schedule(0.9), l2_regularization_weight=0.0001)
    trainer = C.Trainer(z, (loss, error), [learner], [C.logging.ProgressPrinter(tag="Training", num_epochs=epochs)])
    source = create_source(train_map, mean_file, True)
    test_source = create_source(test_map, mean_file, False)
    training_session(
        trainer=trainer, mb_source=source, mb_size=32,
        model_inputs_to_streams={x: source.streams.features, y: source.streams.labels},
        max_samples=train_count * epochs, progress_frequency=train_count,
        test_config=TestConfig(test_source, minibatch_size=50,
                               model_inputs_to_streams={x: test_source.streams.features,
                                                        y: test_source.streams.labels}),
    ).train()
    z.save(os.path.join(args.out, "resnet.model"))


if __name__ == "__main__":
    main()
