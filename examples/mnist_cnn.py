"""A ConvNet for MNIST-shaped digits (the shape of CNTK's ConvNet_MNIST example): the reader's 784-value
"features" stream feeds a (1, 28, 28) input, two convolution + pooling stages, dropout, a learning-rate
schedule per epoch and momentum given as a time constant.

    python examples/mnist_cnn.py [--quick] [--out DIR] [--epochs N]
"""
import argparse
import os

import cntk as C
from cntk.layers import Convolution2D, Dense, Dropout, MaxPooling, Sequential, default_options

import _synthetic



def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=os.path.join("example_output", "mnist_cnn"))
    parser.add_argument("--epochs", type=int, default=None)
    args = parser.parse_args()
    C.cntk_py.set_fixed_random_seed(1)
    epoch_size = 1000 if args.quick else 20000
    epochs = args.epochs or (2 if args.quick else 10)
    train, test = _synthetic.mnist_files(args.out, epoch_size)

    x = C.input_variable((1, 28, 28))      # the reader's 784 values are reshaped to this
    y = C.input_variable(10)
    with default_options(activation=C.relu, pad=False):
        z = Sequential([Convolution2D((5, 5), 16, pad=True), MaxPooling((3, 3), strides=(2, 2)),
                        Convolution2D((3, 3), 32), MaxPooling((3, 3), strides=(2, 2)),
                        Dense(64), Dropout(0.5), Dense(10, activation=None)])(x / 255.0)
    loss, error = C.cross_entropy_with_softmax(z, y), C.classification_error(z, y)

    lr = C.learning_parameter_schedule_per_sample([0.001] * 2 + [0.0005] * 4 + [0.0002], epoch_size=epoch_size)
    momentum = C.momentum_as_time_constant_schedule([0] * 1 + [1024], epoch_size=epoch_size)
    learner = C.momentum_sgd(z.parameters, lr, momentum, l2_regularization_weight=0.0005)
    trainer = C.Trainer(z, (loss, error), [learner], [C.logging.ProgressPrinter(tag="Training", num_epochs=epochs)])

    reader = _synthetic.mnist_reader(train, True)
    input_map = {x: reader.streams.features, y: reader.streams.labels}
    for epoch in range(epochs):
        seen = 0
        while seen < epoch_size:
            data = reader.next_minibatch(min(64, epoch_size - seen), input_map=input_map)
            trainer.train_minibatch(data)
            seen += data[y].num_samples
        trainer.summarize_training_progress()
        z.save(os.path.join(args.out, "ConvNet_MNIST_%d.dnn" % epoch))

    test_reader = _synthetic.mnist_reader(test, False)
    test_map = {x: test_reader.streams.features, y: test_reader.streams.labels}
    while True:
        data = test_reader.next_minibatch(256, input_map=test_map)
        if not data:
            break
        trainer.test_minibatch(data)
    trainer.summarize_test_progress()


if __name__ == "__main__":
    main()
