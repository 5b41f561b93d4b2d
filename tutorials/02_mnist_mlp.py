"""Tutorial 2: recognising hand-written digits with a multi-layer perceptron.

The classic MNIST task: 28 x 28 grey-scale digits, ten classes. We draw our own MNIST-shaped digits
(tutorials/digits.py), store them as CNTK Text Format files exactly like CNTK's MNIST tutorials did, read
them back with a MinibatchSource, and train two hidden ReLU layers with the layers library.

New here compared with tutorial 1: reading data from files (CTFDeserializer, StreamDefs, input maps),
epochs, the layers library (Sequential, For, Dense, default_options), and evaluation over a whole test set.

Run it:   python tutorials/02_mnist_mlp.py [--quick] [--out DIR]
"""
import argparse
import os

import numpy as np

import cntk as C
from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs, INFINITELY_REPEAT
from cntk.layers import Dense, For, Sequential, default_options
from cntk.logging import ProgressPrinter

import digits
import plotting

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--quick", action="store_true", help="a short run (for tests)")
parser.add_argument("--out", default=os.path.join("tutorial_output", "02_mnist_mlp"))
args = parser.parse_args()
C.cntk_py.set_fixed_random_seed(1)

# --- 1. Data files -----------------------------------------------------------------------------------------
# One line per image: a dense one-hot "labels" field and 784 pixel values in a "features" field.
train_count, test_count = (2000, 500) if args.quick else (20000, 2000)
train_images, train_labels = digits.make_digits(train_count, seed=1)
test_images, test_labels = digits.make_digits(test_count, seed=2)
train_file = digits.write_ctf(os.path.join(args.out, "Train-28x28_cntk_text.txt"), train_images, train_labels)
test_file = digits.write_ctf(os.path.join(args.out, "Test-28x28_cntk_text.txt"), test_images, test_labels)
plotting.image_grid(os.path.join(args.out, "training_digits.png"), train_images[:32] / 255.0)

input_dim, num_classes = 784, 10


# A reader: the deserializer knows the file format and which fields make which streams; the source
# randomizes (for training) and repeats the data for as many sweeps as asked.
def create_reader(path, is_training):
    streams = StreamDefs(labels=StreamDef(field="labels", shape=num_classes, is_sparse=False),
                         features=StreamDef(field="features", shape=input_dim, is_sparse=False))
    return MinibatchSource(CTFDeserializer(path, streams), randomize=is_training,
                           max_sweeps=INFINITELY_REPEAT if is_training else 1)


# --- 2. Model ----------------------------------------------------------------------------------------------
# Pixels are 0..255; dividing by 255 keeps the first layer's inputs small. default_options sets the
# initializer and activation of every layer created inside the `with` block.
features = C.input_variable(input_dim)
label = C.input_variable(num_classes)
hidden_dim = 200 if args.quick else 400

with default_options(activation=C.relu, init=C.glorot_uniform()):
    model = Sequential([For(range(2), lambda: Dense(hidden_dim)),
                        Dense(num_classes, activation=None)])
z = model(features / 255.0)
print(z)     # the composed Function: input and output shapes

loss = C.cross_entropy_with_softmax(z, label)
error = C.classification_error(z, label)

# --- 3. Training -------------------------------------------------------------------------------------------
minibatch_size = 64
num_epochs = 2 if args.quick else 10
epoch_size = train_count
lr = C.learning_parameter_schedule_per_sample(0.01)
learner = C.momentum_sgd(z.parameters, lr, C.momentum_schedule(0.9))
printer = ProgressPrinter(tag="Training", num_epochs=num_epochs)
trainer = C.Trainer(z, (loss, error), [learner], [printer])

reader = create_reader(train_file, is_training=True)
input_map = {features: reader.streams.features, label: reader.streams.labels}
epoch_losses = []
for epoch in range(num_epochs):
    seen, loss_sum = 0, 0.0
    while seen < epoch_size:
        data = reader.next_minibatch(min(minibatch_size, epoch_size - seen), input_map=input_map)
        trainer.train_minibatch(data)
        seen += trainer.previous_minibatch_sample_count
        loss_sum += trainer.previous_minibatch_loss_average * trainer.previous_minibatch_sample_count
    # Prints "Finished Epoch[i of n]: [Training] loss = ... metric = ..." and starts a new average.
    trainer.summarize_training_progress()
    epoch_losses.append(loss_sum / seen)

# --- 4. Testing --------------------------------------------------------------------------------------------
# With max_sweeps=1 the reader returns an empty minibatch at the end of the file.
reader_test = create_reader(test_file, is_training=False)
test_map = {features: reader_test.streams.features, label: reader_test.streams.labels}
total_error, total_samples = 0.0, 0
while True:
    data = reader_test.next_minibatch(256, input_map=test_map)
    if not data:
        break
    count = data[label].num_samples
    total_error += trainer.test_minibatch(data) * count
    total_samples += count
print("Average test error: %.2f%% over %d samples" % (100 * total_error / total_samples, total_samples))

# Predictions for a few test digits: softmax turns logits into probabilities.
predicted = np.argmax(C.softmax(z).eval({features: test_images[:16].reshape(16, -1).astype(np.float32)}), 1)
print("labels:    ", " ".join(str(int(d)) for d in test_labels[:16]))
print("predicted: ", " ".join(str(int(d)) for d in predicted))
plotting.line_chart(os.path.join(args.out, "epoch_loss.png"),
                    {"training loss": (range(1, num_epochs + 1), epoch_losses)},
                    title="MLP: loss per epoch", x_label="epoch", y_label="loss")
