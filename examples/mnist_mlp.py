"""MNIST-shaped digit classification with a multi-layer perceptron, trained by training_session over CTF
files, checkpointed, saved, reloaded and evaluated (the shape of CNTK's SimpleMNIST example).

    python examples/mnist_mlp.py [--quick] [--out DIR] [--epochs N]
"""
import argparse
import os

import numpy as np

import cntk as C
from cntk.layers import Dense, Sequential, default_options
from cntk.logging import ProgressPrinter
from cntk.train.training_session import CheckpointConfig, TestConfig, training_session

import _synthetic

INPUT_DIM, NUM_CLASSES = 784, 10



def create_model(features, hidden_dim):
    with default_options(activation=C.relu, init=C.glorot_uniform()):
        return Sequential([Dense(hidden_dim), Dense(hidden_dim), Dense(NUM_CLASSES, activation=None)])(
            features / 255.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=os.path.join("example_output", "mnist_mlp"))
    parser.add_argument("--epochs", type=int, default=None)
    args = parser.parse_args()
    C.cntk_py.set_fixed_random_seed(1)
    train_count = 2000 if args.quick else 20000
    epochs = args.epochs or (2 if args.quick else 10)
    train_file, test_file = _synthetic.mnist_files(args.out, train_count)

    features = C.input_variable(INPUT_DIM)
    labels = C.input_variable(NUM_CLASSES)
    z = create_model(features, 200 if args.quick else 400)
    loss = C.cross_entropy_with_softmax(z, labels)
    error = C.classification_error(z, labels)

    learner = C.sgd(z.parameters, lr=C.learning_parameter_schedule_per_sample([0.003] * 2 + [0.001],
                                                                               epoch_size=train_count))
    printer = ProgressPrinter(tag="Training", num_epochs=epochs)
    trainer = C.Trainer(z, (loss, error), [learner], [printer])

    reader = _synthetic.mnist_reader(train_file, True)
    test_reader = _synthetic.mnist_reader(test_file, False)
    checkpoint = os.path.join(args.out, "mnist_mlp.checkpoint")
    training_session(
        trainer=trainer, mb_source=reader, mb_size=64,
        model_inputs_to_streams={features: reader.streams.features, labels: reader.streams.labels},
        max_samples=train_count * epochs, progress_frequency=train_count,
        checkpoint_config=CheckpointConfig(checkpoint, frequency=train_count, restore=False),
        test_config=TestConfig(test_reader, minibatch_size=250),
    ).train()

    # The saved model is the network alone (no loss); load it back and classify a few test digits.
    model_path = os.path.join(args.out, "mnist_mlp.model")
    z.save(model_path)
    loaded = C.load_model(model_path)
    images, digits = _synthetic.make_digits(10, seed=3)
    scores = loaded.eval({loaded.arguments[0]: images.reshape(10, -1).astype(np.float32)})
    print("labels:   ", digits.tolist())
    print("predicted:", np.argmax(scores, axis=1).tolist())


if __name__ == "__main__":
    main()
