"""Tutorial 3: a convolutional network for the same digits.

An MLP sees 784 unrelated numbers; a convolutional network knows they form a 28 x 28 picture. Small filters
slide over the image and respond to strokes wherever they are; pooling keeps the strongest responses and
halves the resolution. Two such stages and one dense layer beat the MLP of tutorial 2 with far fewer
weights.

New here: image-shaped inputs (channels, height, width), Convolution2D, MaxPooling, the reader feeding a
flat 784-value stream into a (1, 28, 28) input (CNTK reshapes a sample when the sizes agree), Adam, and
looking inside a trained model (its first-layer filters, drawn to a picture).

Run it:   python tutorials/03_mnist_cnn.py [--quick] [--out DIR]
"""
import argparse
import os

import numpy as np

import cntk as C
from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs, INFINITELY_REPEAT
from cntk.layers import Convolution2D, Dense, MaxPooling, Sequential, default_options
from cntk.logging import ProgressPrinter, log_number_of_parameters

import digits
import plotting

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--quick", action="store_true", help="a short run (for tests)")
parser.add_argument("--out", default=os.path.join("tutorial_output", "03_mnist_cnn"))
args = parser.parse_args()
C.cntk_py.set_fixed_random_seed(1)

train_count, test_count = (1000, 300) if args.quick else (20000, 2000)
train_file = digits.write_ctf(os.path.join(args.out, "Train-28x28_cntk_text.txt"),
                              *digits.make_digits(train_count, seed=1))
test_file = digits.write_ctf(os.path.join(args.out, "Test-28x28_cntk_text.txt"),
                             *digits.make_digits(test_count, seed=2))


def create_reader(path, is_training):
    streams = StreamDefs(labels=StreamDef(field="labels", shape=10, is_sparse=False),
                         features=StreamDef(field="features", shape=784, is_sparse=False))
    return MinibatchSource(CTFDeserializer(path, streams), randomize=is_training,
                           max_sweeps=INFINITELY_REPEAT if is_training else 1)


# --- Model -------------------------------------------------------------------------------------------------
# The input is one channel of 28 x 28 pixels. pad=True keeps the spatial size through a convolution;
# each 2 x 2 max-pooling with stride 2 halves it: 28 -> 14 -> 7.
image_shape = (1, 28, 28)
features = C.input_variable(image_shape)
label = C.input_variable(10)

with default_options(activation=C.relu, pad=True):
    model = Sequential([
        Convolution2D((5, 5), num_filters=8, strides=(1, 1), name="first_conv"),
        MaxPooling((2, 2), strides=(2, 2)),
        Convolution2D((5, 5), num_filters=16, strides=(1, 1)),
        MaxPooling((2, 2), strides=(2, 2)),
        Dense(10, activation=None),
    ])
z = model(features / 255.0)
log_number_of_parameters(z)    # "Training N parameters in M parameter tensors."
loss = C.cross_entropy_with_softmax(z, label)
error = C.classification_error(z, label)

# --- Training ----------------------------------------------------------------------------------------------
# Adam adapts a step size per weight. CNTK adds up the gradients of a minibatch's samples, so a rate "per
# sample" (as here) is the step for one sample's gradient; the Trainer prints how it reads the schedule.
minibatch_size, num_epochs = 64, (2 if args.quick else 5)
learner = C.adam(z.parameters, lr=C.learning_parameter_schedule_per_sample(0.001),
                 momentum=C.momentum_schedule(0.9))
printer = ProgressPrinter(freq=0 if args.quick else 100, tag="Training", num_epochs=num_epochs)
trainer = C.Trainer(z, (loss, error), [learner], [printer])

reader = create_reader(train_file, True)
input_map = {features: reader.streams.features, label: reader.streams.labels}
for epoch in range(num_epochs):
    seen = 0
    while seen < train_count:
        trainer.train_minibatch(reader.next_minibatch(min(minibatch_size, train_count - seen),
                                                      input_map=input_map))
        seen += trainer.previous_minibatch_sample_count
    trainer.summarize_training_progress()

# --- Testing -----------------------------------------------------------------------------------------------
reader_test = create_reader(test_file, False)
test_map = {features: reader_test.streams.features, label: reader_test.streams.labels}
errors, samples = 0.0, 0
while True:
    data = reader_test.next_minibatch(128, input_map=test_map)
    if not data:
        break
    errors += trainer.test_minibatch(data) * data[label].num_samples
    samples += data[label].num_samples
print("Average test error: %.2f%%" % (100 * errors / samples))

# --- Inside the model --------------------------------------------------------------------------------------
# find_by_name reaches a named layer; its W has shape (filters, channels, height, width).
filters = z.find_by_name("first_conv").W.value[:, 0]
filters = (filters - filters.min()) / (filters.max() - filters.min())
plotting.image_grid(os.path.join(args.out, "first_layer_filters.png"), filters, columns=8, scale=12)
