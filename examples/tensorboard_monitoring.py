"""Monitoring a ConvNet in TensorBoard: TensorBoardProgressWriter records minibatch and epoch losses,
parameter histograms, test error and sample images while a ProgressPrinter prints CNTK's lines.

    python examples/tensorboard_monitoring.py [--quick] [--out DIR]
    tensorboard --logdir example_output/tensorboard_monitoring
"""
import argparse
import os

import numpy as np

import cntk as C
from cntk.layers import Convolution2D, Dense, MaxPooling, Sequential, default_options
from cntk.logging import ProgressPrinter, TensorBoardProgressWriter

import _synthetic


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=os.path.join("example_output", "tensorboard_monitoring"))
    args = parser.parse_args()
    C.cntk_py.set_fixed_random_seed(1)
    rng = np.random.RandomState(0)
    count = 1000 if args.quick else 20000
    images, digits = _synthetic.make_digits(count, seed=1)
    test_images, test_digits = _synthetic.make_digits(300, seed=2)
    x_train = images[:, None].astype(np.float32) / 255
    x_test = test_images[:, None].astype(np.float32) / 255
    y_train, y_test = np.eye(10, dtype=np.float32)[digits], np.eye(10, dtype=np.float32)[test_digits]

    x, y = C.input_variable((1, 28, 28)), C.input_variable(10)
    with default_options(activation=C.relu, pad=True):
        z = Sequential([Convolution2D((3, 3), 8), MaxPooling((2, 2), strides=2),
                        Convolution2D((3, 3), 16), MaxPooling((2, 2), strides=2),
                        Dense(10, activation=None)])(x)
    loss, error = C.cross_entropy_with_softmax(z, y), C.classification_error(z, y)

    tensorboard = TensorBoardProgressWriter(freq=5, log_dir=args.out, model=z)
    epochs = 2 if args.quick else 8
    trainer = C.Trainer(z, (loss, error), [C.adam(z.parameters, C.learning_parameter_schedule_per_sample(0.001),
                                                  C.momentum_schedule(0.9))],
                        [ProgressPrinter(tag="Training", num_epochs=epochs), tensorboard])
    tensorboard.write_image("inputs", {x: x_train[:8]}, 0)
    for epoch in range(epochs):
        order = rng.permutation(count)
        for start in range(0, count, 64):
            batch = order[start:start + 64]
            trainer.train_minibatch({x: x_train[batch], y: y_train[batch]})
        trainer.summarize_training_progress()
        test_error = trainer.test_minibatch({x: x_test, y: y_test})
        tensorboard.write_value("test/error", test_error, epoch)
        print("epoch %d test error: %.2f%%" % (epoch + 1, 100 * test_error))
    tensorboard.close()
    print("event files:", sorted(f for f in os.listdir(args.out) if "tfevents" in f))


if __name__ == "__main__":
    main()
