"""The logistic-regression part of CNTK 200 "A Guided Tour", unchanged apart from the notebook magics.

Runs on embedded data: the tour generates its own synthetic data set.
"""
from __future__ import print_function

import numpy as np
import scipy.sparse

import cntk
import cntk.tests.test_utils

cntk.tests.test_utils.set_device_from_pytest_env()  # (only needed for our build system)
cntk.cntk_py.set_fixed_random_seed(1)  # fix the random seed so that LR examples are repeatable

input_dim_lr = 2    # classify 2-dimensional data
num_classes_lr = 2  # into one of two classes

np.random.seed(0)


def generate_synthetic_data(N):
    Y = np.random.randint(size=N, low=0, high=num_classes_lr)  # labels
    X = (np.random.randn(N, input_dim_lr) + 3) * (Y[:, None] + 1)   # data
    Y = scipy.sparse.csr_matrix((np.ones(N, np.float32), (range(N), Y)), shape=(N, num_classes_lr))
    X = X.astype(np.float32)
    return X, Y


X_train_lr, Y_train_lr = generate_synthetic_data(20000)
X_test_lr, Y_test_lr = generate_synthetic_data(1024)
print('data =\n', X_train_lr[:4])
print('labels =\n', Y_train_lr[:4].todense())

model_lr_factory = cntk.layers.Dense(num_classes_lr, activation=None)
x = cntk.input_variable(input_dim_lr)
y = cntk.input_variable(num_classes_lr, is_sparse=True)
model_lr = model_lr_factory(x)


@cntk.Function
def criterion_lr_factory(data, label_one_hot):
    z = model_lr_factory(data)  # apply model. Computes a non-normalized log probability for every output class.
    loss = cntk.cross_entropy_with_softmax(z, label_one_hot)  # applies softmax to z under the hood
    metric = cntk.classification_error(z, label_one_hot)
    return loss, metric


criterion_lr = criterion_lr_factory(x, y)
print('criterion_lr:', criterion_lr)

learner = cntk.sgd(model_lr.parameters, cntk.learning_parameter_schedule(0.1))
progress_writer = cntk.logging.ProgressPrinter(0)
criterion_lr.train((X_train_lr, Y_train_lr), parameter_learners=[learner], callbacks=[progress_writer])
print(model_lr.W.value)  # peek at updated W

test_metric_lr = criterion_lr.test((X_test_lr, Y_test_lr), callbacks=[progress_writer]).metric

model_lr = model_lr_factory(x)
print('model_lr:', model_lr)

z = model_lr(X_test_lr[:20])
print("Label    :", [label.todense().argmax() for label in Y_test_lr[:20]])
print("Predicted:", [z[i, :].argmax() for i in range(len(z))])
