"""Tutorial 9: watching training in TensorBoard.

Progress lines are fine for a few minutes of training; for hours you want curves. CNTK's
TensorBoardProgressWriter is a progress writer like ProgressPrinter: give it to the Trainer and it records
the loss and metric of every few minibatches, and at each epoch's end the averages and (when given the
model) a histogram of every parameter. You can add your own values and images. Then run

    tensorboard --logdir tutorial_output/09_tensorboard/log

and open http://localhost:6006. (The tensorboard package is installed with cntk-compat.)

New here: TensorBoardProgressWriter next to ProgressPrinter, write_value for your own numbers (test error,
learning rate), write_image, a learning-rate schedule that changes per epoch, and reading the event file
back to see what was recorded.

Run it:   python tutorials/09_tensorboard.py [--quick] [--out DIR]
"""
import argparse
import os

import numpy as np

import cntk as C
from cntk.layers import Dense, Dropout, Sequential
from cntk.logging import ProgressPrinter, TensorBoardProgressWriter

import digits

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--quick", action="store_true", help="a short run (for tests)")
parser.add_argument("--out", default=os.path.join("tutorial_output", "09_tensorboard"))
args = parser.parse_args()
C.cntk_py.set_fixed_random_seed(1)
np.random.seed(0)

# --- Data and model: the digits of tutorial 2, fed as numpy arrays --------------------------------------------
train_count = 1500 if args.quick else 20000
train_x, train_y = digits.make_digits(train_count, seed=1)
test_x, test_y = digits.make_digits(500, seed=2)
train_x = train_x.reshape(len(train_x), -1).astype(np.float32) / 255
test_x = test_x.reshape(len(test_x), -1).astype(np.float32) / 255
train_y, test_y = np.eye(10, dtype=np.float32)[train_y], np.eye(10, dtype=np.float32)[test_y]

features = C.input_variable(784)
label = C.input_variable(10)
z = Sequential([Dense(200, activation=C.relu, name="hidden"), Dropout(0.2), Dense(10)])(features)
loss = C.cross_entropy_with_softmax(z, label)
error = C.classification_error(z, label)

# --- Learner with a schedule: the rate drops after each of the first epochs ------------------------------------
epochs = 3 if args.quick else 10
minibatch_size = 50
epoch_size = train_count
lr_schedule = C.learning_parameter_schedule_per_sample([0.02, 0.01, 0.005], epoch_size=epoch_size)
learner = C.momentum_sgd(z.parameters, lr_schedule, C.momentum_schedule(0.9))

# --- Two progress writers: one prints, one records ------------------------------------------------------------
log_dir = os.path.join(args.out, "log")
tensorboard = TensorBoardProgressWriter(freq=10, log_dir=log_dir, model=z)
printer = ProgressPrinter(tag="Training", num_epochs=epochs)
trainer = C.Trainer(z, (loss, error), [learner], [printer, tensorboard])

for epoch in range(epochs):
    order = np.random.permutation(train_count)
    for start in range(0, train_count, minibatch_size):
        batch = order[start:start + minibatch_size]
        trainer.train_minibatch({features: train_x[batch], label: train_y[batch]})
    trainer.summarize_training_progress()      # epoch averages (and histograms) go to both writers
    test_error = trainer.test_minibatch({features: test_x, label: test_y})
    # Your own scalars: the name is the chart's title, the step its x-axis.
    tensorboard.write_value("test/error", test_error, epoch)
    tensorboard.write_value("learning_rate_per_sample", learner.learning_rate(), epoch)
    print("epoch %d: test error %.2f%%; learning rate from here on %g"
          % (epoch + 1, 100 * test_error, learner.learning_rate()))

# Images: write_image takes a dict like eval's result, a variable -> a batch of shape (N, channels, height,
# width) with values in [0, 1]. Here: what each of the first eight hidden units looks for (its 784 input
# weights seen as a 28 x 28 picture).
weights = z.find_by_name("hidden").W.value[:, :8].T.reshape(8, 1, 28, 28)
weights = (weights - weights.min()) / (weights.max() - weights.min())
tensorboard.write_image("hidden_units", {C.input_variable((1, 28, 28)): weights}, epochs)
tensorboard.close()

# --- What was recorded? ------------------------------------------------------------------------------------
# TensorBoard's own reader lists the tags of the event file: what you will see in the browser.
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

events = EventAccumulator(log_dir, size_guidance={"scalars": 0, "histograms": 0, "images": 0})
events.Reload()
tags = events.Tags()
for kind in ("scalars", "histograms", "images"):
    print("%-10s %s" % (kind + ":", ", ".join(sorted(tags.get(kind, [])))))
print("mb_loss points recorded:", len(events.Scalars("minibatch/avg_loss")) if "minibatch/avg_loss" in
      tags["scalars"] else 0)
print("Now run: tensorboard --logdir %s" % log_dir)
