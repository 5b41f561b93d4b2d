"""The learner numbers printed in CNTK's "How to use learners" tutorial (all-zero parameters, all-one
gradients): every learner must reproduce them to 4 decimals."""
import math

import numpy as np
import pytest

import cntk as C
import cntk.learners
import cntk.ops
from cntk.ops import parameter


@pytest.fixture
def params():
    return [parameter((4, 2)), parameter((2,)), parameter((3, 4)), parameter((4,))]


def inspect_update(learner, mbsize, count=1):
    for p in learner.parameters:
        p.value = 0 * p.value
    updates = {p: p.value + 1 for p in learner.parameters}
    for _ in range(count):
        learner.update(updates, mbsize)
    return [p.value for p in learner.parameters]


def first_row(values):
    return [round(float(v), 4) for v in values[0][0]]


def test_sgd_units(params):
    s = C.learners.sgd(params, C.learners.learning_rate_schedule(0.5, C.learners.UnitType.sample))
    m = C.learners.sgd(params, C.learners.learning_rate_schedule(0.5, C.learners.UnitType.minibatch))
    assert all(np.all(v == -0.5) for v in inspect_update(s, 2))
    assert all(np.all(v == -0.25) for v in inspect_update(m, 2))


def test_momentum_variants(params):
    mb_size, time_constant = 10, 300
    momentum = math.exp(-mb_size / time_constant)
    lr = C.learners.learning_rate_schedule(1, C.learners.UnitType.minibatch)
    ug = C.learners.learning_rate_schedule(1 / (1 - momentum), C.learners.UnitType.minibatch)
    m = C.learners.momentum_schedule(momentum)
    t = C.learners.momentum_as_time_constant_schedule(time_constant)
    for learner in (C.learners.momentum_sgd(params, lr, m, unit_gain=False),
                    C.learners.momentum_sgd(params, lr, t, unit_gain=False),
                    C.learners.momentum_sgd(params, ug, m, unit_gain=True)):
        assert first_row(inspect_update(learner, mb_size, 5)) == [-1.436, -1.436]


def test_adaptive_learners(params):
    L = C.learners
    lr = L.learning_rate_schedule(1, L.UnitType.minibatch)
    t = L.momentum_as_time_constant_schedule(1000)
    expected = [
        (L.adadelta(params, lr, 0.999, 1e-6), -0.0099),
        (L.adagrad(params, lr), -0.3125),
        (L.adam(params, lr, t, unit_gain=False), -9.9203),
        (L.adam(params, lr, t, unit_gain=False, adamax=True), -9.9227),
        (L.fsadagrad(params, lr, t, unit_gain=False), -8.8573),
        (L.rmsprop(params, lr, gamma=0.999, inc=1.0 + 1e-9, dec=1.0 - 1e-9, max=np.inf, min=1e-30), -0.3125),
        (L.adadelta(params, L.learning_rate_schedule(1004, L.UnitType.minibatch), 0.999, 1e-6), -9.9228),
    ]
    for learner, value in expected:
        assert first_row(inspect_update(learner, 32, 10)) == [value, value], type(learner).__name__


def test_universal_rmsprop(params):
    O = C.ops

    def my_rmsprop(parameters, gradients):
        rho, lr = 0.999, 0.01
        accumulators = [O.constant(1e-6, shape=p.shape, dtype=p.dtype) for p in parameters]
        update_funcs = []
        for p, g, a in zip(parameters, gradients, accumulators):
            accum_new = O.assign(a, rho * a + (1 - rho) * g * g)
            update_funcs.append(O.assign(p, p - lr * g / O.sqrt(accum_new)))
        return O.combine(update_funcs)

    learner = C.learners.universal(my_rmsprop, params)
    assert first_row(inspect_update(learner, 10, 2)) == [-0.5397, -0.5397]


def test_user_learner_numpy_sgd(params):
    class MySgd(C.learners.UserLearner):
        def __init__(self, parameters, lr_schedule):
            super(MySgd, self).__init__(parameters, lr_schedule)
            self.lr = lr_schedule[0]

        def update(self, gradient_values, training_sample_count, sweep_end):
            for p, g in gradient_values.items():
                assert isinstance(g, np.ndarray)
                p.value = p.value - self.lr / training_sample_count * g
            return True

    learner = MySgd(params, C.learners.learning_rate_schedule(1, C.learners.UnitType.minibatch))
    for p in learner.parameters():
        p.value = 0 * p.value
    updates = {p: p.value + 1 for p in learner.parameters}
    for _ in range(10):
        learner.update(updates, np.float32(64), sweep_end=False)
    assert [round(float(v), 4) for v in params[0].value[0]] == [-0.1562, -0.1562]
