"""Which reference minibatch size a learning rate is applied with, against steps CNTK 2.7 took: w = [1, 2] under
loss sum(x * w) for x = [[1, 1], [2, 2], [3, 3]] (gradient sum 6, mean 2), each learner one minibatch."""
import numpy as np
import pytest

import cntk as C
from cntk.learners import IGNORE, learning_parameter_schedule, learning_parameter_schedule_per_sample


def _step(make_learner, reset=None):
    x = C.input_variable(2)
    w = C.parameter((2,), init=np.array([1., 2.], np.float32))
    loss = C.reduce_sum(x * w)
    learner = make_learner([w])
    if reset is not None:
        learner.reset_learning_rate(reset)
    C.Trainer(loss, (loss, None), learner).train_minibatch({x: np.array([[1, 1], [2, 2], [3, 3]], np.float32)})
    return round(1 - float(w.value[0]), 6)


def per_sample():
    return learning_parameter_schedule_per_sample(0.01)


@pytest.mark.parametrize("make_learner, reset, cntk_step", [
    # compatible mode averages the gradient, but a per-sample rate still acts per sample
    (lambda p: C.sgd(p, per_sample(), minibatch_size=IGNORE), None, 0.06),
    (lambda p: C.sgd(p, learning_parameter_schedule(0.01, minibatch_size=2), minibatch_size=IGNORE), None, 0.03),
    (lambda p: C.sgd(p, 0.01, minibatch_size=IGNORE), None, 0.02),
    (lambda p: C.momentum_sgd(p, per_sample(), C.momentum_schedule(0.9), minibatch_size=IGNORE), None, 0.006),
    (lambda p: C.adam(p, per_sample(), C.momentum_schedule(0.9), variance_momentum=C.momentum_schedule(0.999),
                      minibatch_size=IGNORE), None, 0.03),
    # the deprecated use_mean_gradient=True turns a per-sample rate into a per-minibatch one
    (lambda p: C.sgd(p, per_sample(), use_mean_gradient=True), None, 0.02),
    # reset_learning_rate takes the values only: the reference size stays the learner's
    (lambda p: C.sgd(p, per_sample(), use_mean_gradient=True), per_sample(), 0.02),
    (lambda p: C.sgd(p, 0.01, minibatch_size=IGNORE), per_sample(), 0.02),
    (lambda p: C.sgd(p, 0.01), per_sample(), 0.02),
    (lambda p: C.sgd(p, per_sample()), learning_parameter_schedule(0.01, minibatch_size=2), 0.06),
    (lambda p: C.sgd(p, per_sample(), minibatch_size=IGNORE), learning_parameter_schedule(0.01), 0.06),
    (lambda p: C.sgd(p, 0.01, minibatch_size=2), per_sample(), 0.03),
])
def test_step_is_cntk27s(make_learner, reset, cntk_step):
    assert _step(make_learner, reset) == pytest.approx(cntk_step, abs=2e-6)
