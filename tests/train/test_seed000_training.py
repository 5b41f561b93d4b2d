"""Seed 000 (the guided tour), its training parts: logistic regression trained and tested with
``Function.train`` / ``Function.test`` on numpy/scipy data, the momentum/minibatch-size schedules of the MNIST
section with ``Function.train``, and the explicit Trainer/Evaluator minibatch loop.

The cells are the seed's code (indentation restored; the notebook-only lines of its first cell -- IPython,
matplotlib, the CNTK build-system device hook -- left out). The MNIST download is replaced by a small random
image set: the cells only train on it, and what is checked is what they print (schedule changes at the
right epochs, the per-epoch lines, the evaluation line). The seed's own numbers depend on CNTK's random
initialization; the numpy-generated data it prints are compared exactly and the rest by format and ranges.
"""
import re

import numpy as np
import pytest
import scipy.sparse

from tests.seeds.cell_runner import cell_runner

SETUP = r"""
from __future__ import print_function
import cntk
import numpy as np
import scipy.sparse
cntk.cntk_py.set_fixed_random_seed(1) # fix the random seed so that LR examples are repeatable
"""

CELL_3 = r"""
input_dim_lr = 2    # classify 2-dimensional data
num_classes_lr = 2  # into one of two classes

# This example uses synthetic data from normal distributions,
# which we generate in the following.
#  X_lr[corpus_size,input_dim] - input data
#  Y_lr[corpus_size]           - labels (0 or 1), one-hot-encoded
np.random.seed(0)
def generate_synthetic_data(N):
    Y = np.random.randint(size=N, low=0, high=num_classes_lr)  # labels
    X = (np.random.randn(N, input_dim_lr)+3) * (Y[:,None]+1)   # data
    # Our model expects float32 features, and cross-entropy
    # expects one-hot encoded labels.
    Y = scipy.sparse.csr_matrix((np.ones(N,np.float32), (range(N), Y)), shape=(N, num_classes_lr))
    X = X.astype(np.float32)
    return X, Y
X_train_lr, Y_train_lr = generate_synthetic_data(20000)
X_test_lr,  Y_test_lr  = generate_synthetic_data(1024)
print('data =\n', X_train_lr[:4])
print('labels =\n', Y_train_lr[:4].todense())
"""

CELL_4_5 = r"""
model_lr_factory = cntk.layers.Dense(num_classes_lr, activation=None)
x = cntk.input_variable(input_dim_lr)
y = cntk.input_variable(num_classes_lr, is_sparse=True)
model_lr = model_lr_factory(x)

@cntk.Function
def criterion_lr_factory(data, label_one_hot):
    z = model_lr_factory(data)  # apply model. Computes a non-normalized log probability for every output class.
    loss = cntk.cross_entropy_with_softmax(z, label_one_hot) # applies softmax to z under the hood
    metric = cntk.classification_error(z, label_one_hot)
    return loss, metric
criterion_lr = criterion_lr_factory(x, y)
print('criterion_lr:', criterion_lr)
"""

CELL_6 = r"""
learner = cntk.sgd(model_lr.parameters,
                   cntk.learning_parameter_schedule(0.1))
progress_writer = cntk.logging.ProgressPrinter(0)

criterion_lr.train((X_train_lr, Y_train_lr), parameter_learners=[learner],
                   callbacks=[progress_writer])

print(model_lr.W.value) # peek at updated W
"""

CELL_7 = r"""
test_metric_lr = criterion_lr.test((X_test_lr, Y_test_lr),
                                   callbacks=[progress_writer]).metric
"""

CELL_13_14 = r"""
N = len(X_train_mn)
lrs = cntk.learning_parameter_schedule_per_sample([0.001]*12 + [0.0005]*6 + [0.00025]*6 + [0.000125]*3 + [0.0000625]*3 + [0.00003125], epoch_size=N)
momentums = cntk.momentum_schedule_per_sample([0]*5 + [0.9990239141819757], epoch_size=N)
minibatch_sizes = cntk.minibatch_size_schedule([256]*6 + [512]*9 + [1024]*7 + [2048]*8 + [4096], epoch_size=N)

learner = cntk.learners.momentum_sgd(model_mn.parameters, lrs, momentums)

progress_writer = cntk.logging.ProgressPrinter()
criterion_mn.train((X_train_mn, Y_train_mn), minibatch_size=minibatch_sizes,
                   max_epochs=40, parameter_learners=[learner], callbacks=[progress_writer])
test_metric_mn = criterion_mn.test((X_test_mn, Y_test_mn), callbacks=[progress_writer]).metric
"""

CELL_17 = r"""
# Recreate the model, so that we can start afresh. This is a direct copy from above.
model_lr = cntk.layers.Dense(num_classes_lr, activation=None)
@cntk.Function
def criterion_lr_factory(data, label_one_hot):
    z = model_lr(data)  # apply model. Computes a non-normalized log probability for every output class.
    loss = cntk.cross_entropy_with_softmax(z, label_one_hot) # this applies softmax to z under the hood
    metric = cntk.classification_error(z, label_one_hot)
    return loss, metric
x = cntk.input_variable(input_dim_lr)
y = cntk.input_variable(num_classes_lr, is_sparse=True)
criterion_lr = criterion_lr_factory(x,y)

# Create the learner; same as above.
learner = cntk.sgd(model_lr.parameters, cntk.learning_parameter_schedule(0.1))

# This time we must create a Trainer instance ourselves.
trainer = cntk.Trainer(None, criterion_lr, [learner], [cntk.logging.ProgressPrinter(50)])

# Train the model by spoon-feeding minibatch by minibatch.
minibatch_size = 32
for i in range(0, len(X_train_lr), minibatch_size): # loop over minibatches
    x = X_train_lr[i:i+minibatch_size] # get one minibatch worth of data
    y = Y_train_lr[i:i+minibatch_size]
    trainer.train_minibatch({criterion_lr.arguments[0]: x, criterion_lr.arguments[1]: y})  # update model from one minibatch
trainer.summarize_training_progress()

# Test error rate minibatch by minibatch
evaluator = cntk.Evaluator(criterion_lr.outputs[1], [progress_writer]) # metric is the second output of criterion_lr()
for i in range(0, len(X_test_lr), minibatch_size): # loop over minibatches
    x = X_test_lr[i:i+minibatch_size] # get one minibatch worth of data
    y = Y_test_lr[i:i+minibatch_size]
    evaluator.test_minibatch({criterion_lr.arguments[0]: x, criterion_lr.arguments[1]: y})  # test one minibatch
evaluator.summarize_test_progress()
"""

PRINTED_DATA = """\
data =
 [[2.2741797 3.5634756]
 [5.128736  5.790895 ]
 [1.3574543 5.5718112]
 [3.5434055 2.4625459]]
labels =
 [[1. 0.]
 [0. 1.]
 [0. 1.]
 [1. 0.]]
"""

# ProgressPrinter(0): a line after minibatches 1, 2, 4, 8, ... (samples 32, 96, 224, ...)
TRAIN_EXAMPLES = [32, 96, 224, 480, 992, 2016, 4064, 8160, 16352]


@pytest.fixture
def seed(capsys):
    return cell_runner(capsys, SETUP)


def test_synthetic_data_cell(seed):
    namespace, run = seed
    # numpy of the seed printed without padding to a common width; compare the numbers
    got, want = run(CELL_3), PRINTED_DATA
    assert got.splitlines()[0] == "data ="
    numbers = lambda s: [float(v) for v in re.findall(r"-?\d+\.\d*", s)]
    assert numbers(got) == pytest.approx(numbers(want), abs=1e-6)


def test_function_train_test_and_explicit_loop(seed):
    namespace, run = seed
    run(CELL_3)
    assert run(CELL_4_5) == "criterion_lr: Composite(Tensor[2], SparseTensor[2]) -> Tuple[Tensor[1], Tensor[1]]\n"
    lines = run(CELL_6).splitlines()
    assert lines[:4] == [" average      since    average      since      examples",
                         "    loss       last     metric       last              ",
                         " ------------------------------------------------------",
                         "Learning rate per minibatch: 0.1"]
    rows = [line.split() for line in lines[4:4 + len(TRAIN_EXAMPLES)]]
    assert [int(r[4]) for r in rows] == TRAIN_EXAMPLES
    assert float(rows[-1][0]) < float(rows[0][0])            # average loss goes down
    assert float(rows[-1][3]) < 0.2                          # the seed: 0.0876 error since the previous line
    W = namespace["model_lr"].W.value
    assert W.shape == (2, 2) and re.match(r"^\[\[.*\]\n \[.*\]\]$", "\n".join(lines[4 + len(TRAIN_EXAMPLES):]))
    out = run(CELL_7)
    m = re.match(r"^Finished Evaluation \[1\]: Minibatch\[1-32\]: metric = (\d+\.\d\d)% \* 1024;\n$", out)
    assert m and float(m.group(1)) < 20                      # the seed: 8.11%
    assert namespace["test_metric_lr"] == pytest.approx(float(m.group(1)) / 100, abs=5e-5)

    # the explicit Trainer / Evaluator loop (cell 17)
    lines = run(CELL_17).splitlines()
    assert lines[0] == "Learning rate per minibatch: 0.1"
    pattern = re.compile(r"^ Minibatch\[ *(\d+)- *(\d+)\]: loss = \d+\.\d{6} \* 1600, metric = \d+\.\d\d% \* 1600;$")
    ranges = [tuple(int(g) for g in pattern.match(line).groups()) for line in lines[1:13]]
    assert ranges == [(50 * k + 1, 50 * k + 50) for k in range(12)]
    assert re.match(r"^Finished Epoch\[1\]: loss = \d+\.\d{6} \* 20000, metric = \d+\.\d\d% \* 20000 "
                    r"\d+\.\d{3}s \( *\d+\.\d samples/s\);$", lines[13])
    # the evaluator reports to the ProgressPrinter of cell 6, whose first evaluation was cell 7
    assert re.match(r"^Finished Evaluation \[2\]: Minibatch\[1-32\]: metric = \d+\.\d\d% \* 1024;$", lines[14])
    assert len(lines) == 15


def test_schedules_with_function_train(seed):
    namespace, run = seed
    rng = np.random.RandomState(0)
    n = 64
    labels = rng.randint(0, 10, 2 * n)
    namespace.update(
        X_train_mn=rng.rand(n, 28, 28).astype(np.float32), X_test_mn=rng.rand(n, 28, 28).astype(np.float32),
        Y_train_mn=scipy.sparse.csr_matrix((np.ones(n, np.float32), (range(n), labels[:n])), shape=(n, 10)),
        Y_test_mn=scipy.sparse.csr_matrix((np.ones(n, np.float32), (range(n), labels[n:])), shape=(n, 10)))
    # a dense model stands in for the seed's convolutional one: this test is about the training loop
    run(r"""
num_classes_mn = 10
model_mn = cntk.layers.Sequential([cntk.layers.Dense(16, activation=cntk.ops.relu), cntk.layers.Dense(num_classes_mn, activation=None)])
@cntk.Function
def criterion_mn_factory(data, label_one_hot):
    z = model_mn(data)
    loss = cntk.cross_entropy_with_softmax(z, label_one_hot)
    metric = cntk.classification_error(z, label_one_hot)
    return loss, metric
x = cntk.input_variable((28, 28))
y = cntk.input_variable(num_classes_mn, is_sparse=True)
criterion_mn = criterion_mn_factory(x,y)
""")
    lines = run(CELL_13_14).splitlines()
    epoch = re.compile(r"^Finished Epoch\[(\d+)\]: loss = \d+\.\d{6} \* 64, metric = \d+\.\d\d% \* 64 "
                       r"\d+\.\d{3}s \( *\d+\.\d samples/s\);$")
    events, epochs = [], 0
    for line in lines[:-1]:
        m = epoch.match(line)
        if m:
            epochs += 1
            assert int(m.group(1)) == epochs
        else:
            events.append((epochs + 1, line))
    assert epochs == 40
    # the seed's schedule changes, printed before the first epoch they apply to
    assert events == [(1, "Learning rate per 1 samples: 0.001"), (1, "Momentum per 1 samples: 0.0"),
                      (6, "Momentum per 1 samples: 0.9990239141819757"),
                      (13, "Learning rate per 1 samples: 0.0005"), (19, "Learning rate per 1 samples: 0.00025"),
                      (25, "Learning rate per 1 samples: 0.000125"), (28, "Learning rate per 1 samples: 6.25e-05"),
                      (31, "Learning rate per 1 samples: 3.125e-05")]
    assert re.match(r"^Finished Evaluation \[1\]: Minibatch\[1-\d+\]: metric = \d+\.\d\d% \* 64;$", lines[-1])
