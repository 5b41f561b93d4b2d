"""Tutorial 1: logistic regression, the "hello world" of CNTK.

A clinic measures two numbers per patient (say, age and tumour size, both rescaled) and wants to tell
benign from malignant cases. We invent such data, write the model y = softmax(W x + b) by hand with CNTK's
ops, train it with stochastic gradient descent through a Trainer, watch CNTK's progress lines, and draw the
boundary it learned.

Run it:   python tutorials/01_logistic_regression.py            (about a minute of CPU)
          python tutorials/01_logistic_regression.py --quick    (a few seconds; what the tests run)
Pictures go to --out (default ./tutorial_output/01_logistic_regression).
"""
import argparse
import os

import numpy as np

import cntk as C
from cntk.logging import ProgressPrinter

import plotting

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--quick", action="store_true", help="a short run (for tests)")
parser.add_argument("--out", default=os.path.join("tutorial_output", "01_logistic_regression"))
args = parser.parse_args()

# CNTK draws its initial weights from its own random generator; fixing the seed makes every run print the
# same numbers. numpy's seed fixes the data.
C.cntk_py.set_fixed_random_seed(1)
np.random.seed(0)

input_dim, num_classes = 2, 2

# --- 1. Data -----------------------------------------------------------------------------------------------
# Each class is a Gaussian blob; class 1 sits further out. Labels are one-hot rows, which is what CNTK's
# cross-entropy expects.


def make_data(count):
    labels = np.random.randint(num_classes, size=count)
    features = (np.random.randn(count, input_dim) + 3) * (labels[:, None] + 1)
    one_hot = np.eye(num_classes, dtype=np.float32)[labels]
    return features.astype(np.float32), one_hot


# --- 2. Model ----------------------------------------------------------------------------------------------
# An input_variable is a placeholder for the data of one sample; the batch axis is implicit. Parameters are
# the learnable tensors. times/plus build a graph; nothing is computed yet.
features = C.input_variable(input_dim, np.float32)
label = C.input_variable(num_classes, np.float32)

weight = C.parameter(shape=(input_dim, num_classes), init=C.glorot_uniform(), name="W")
bias = C.parameter(shape=(num_classes,), init=0, name="b")
z = C.plus(C.times(features, weight), bias, name="z")       # unnormalised log-probabilities ("logits")

# The loss is cross-entropy after a softmax (fused, for numerical stability); the metric counts mistakes.
loss = C.cross_entropy_with_softmax(z, label)
error = C.classification_error(z, label)

# --- 3. Training -------------------------------------------------------------------------------------------
# A learner updates parameters; a Trainer ties model, loss, metric and learners together. ProgressPrinter
# prints CNTK's familiar table: averages since the start and since the last line, at doubling intervals
# when freq=0.
minibatch_size = 25
num_minibatches = 100 if args.quick else 2000
learner = C.sgd(z.parameters, lr=C.learning_parameter_schedule(0.1))
printer = ProgressPrinter(freq=0 if args.quick else 200, tag="Training")
trainer = C.Trainer(z, (loss, error), [learner], [printer])

losses = []
for step in range(num_minibatches):
    x, y = make_data(minibatch_size)
    trainer.train_minibatch({features: x, label: y})
    losses.append(trainer.previous_minibatch_loss_average)
trainer.summarize_training_progress()

# --- 4. Evaluation -----------------------------------------------------------------------------------------
# test_minibatch returns the metric (here the error rate) on data the model has not seen.
test_x, test_y = make_data(400)
test_error = trainer.test_minibatch({features: test_x, label: test_y})
print("Error rate on 400 unseen patients: %.2f%%" % (100 * test_error))

# To get probabilities, wrap z in a softmax and evaluate it: eval takes a dict of input -> numpy data.
probabilities = C.softmax(z).eval({features: test_x[:5]})
print("P(class) for five patients:\n", np.round(probabilities, 3))
print("their labels:", [int(i) for i in np.argmax(test_y[:5], axis=1)])

# The learned parameters are ordinary numpy arrays.
w, b = weight.value, bias.value
print("W =", np.round(w, 3).tolist(), " b =", np.round(b, 3).tolist())

# --- 5. Pictures -------------------------------------------------------------------------------------------
# The decision boundary is where both logits are equal: x . (w0 - w1) + (b0 - b1) = 0.
plotting.line_chart(os.path.join(args.out, "loss.png"),
                    {"minibatch loss": (range(len(losses)), losses)},
                    title="Logistic regression: training loss", x_label="minibatch", y_label="loss")
dw, db = w[:, 0] - w[:, 1], b[0] - b[1]
xs = np.linspace(test_x[:, 0].min(), test_x[:, 0].max(), 2)
ys = -(dw[0] * xs + db) / dw[1] if abs(dw[1]) > 1e-6 else np.full_like(xs, test_x[:, 1].mean())
classes = np.argmax(test_y, axis=1)
plotting.scatter_chart(os.path.join(args.out, "boundary.png"),
                       {"benign": test_x[classes == 0], "malignant": test_x[classes == 1]},
                       title="Test patients and the learned boundary", x_label="feature 1",
                       y_label="feature 2", line=(xs, np.clip(ys, test_x[:, 1].min(), test_x[:, 1].max())))
