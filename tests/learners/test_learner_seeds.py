"""CNTK 2.7's built-in learners take one automatic random seed each when they are created (the seed of their
Gaussian noise injection, taken whether or not noise is asked for), so a layer created after a learner gets
the next seed. Golden sums are the initial weights CNTK 2.7 (CPU) gave the Dense(10) below."""
import numpy as np
import pytest

import cntk as C
from cntk import cntk_py

SEED1_SUM = 4.4107475     # CNTK 2.7: Dense(10) over 784 inputs with automatic seed 1
SEED2_SUM = -5.1168623    # ... with seed 2 (one learner created before it)
SEED5_SUM = 1.0111476     # ... with seed 5


pytestmark = pytest.mark.usefixtures("fresh_automatic_seeds")  # golden values drawn from seed 0 on


def _model():
    x = C.input_variable(2)
    m = C.layers.Dense(2, activation=None)   # W takes seed 0
    m(x)
    return m


def _next_dense_sum():
    d = C.layers.Dense(10)
    d(C.input_variable(784))
    return float(d.W.value.sum())


class _NoOpLearner(C.learners.UserLearner):
    def update(self, gradient_values, training_sample_count, sweep_end):
        return True


def _universal(ps):
    return C.universal(lambda params, grads: C.combine([C.assign(p, p - g * 0.1) for p, g in zip(params, grads)]), ps)


LEARNERS = {
    "sgd": lambda P, lr, mm: C.sgd(P, lr),
    "momentum_sgd": lambda P, lr, mm: C.momentum_sgd(P, lr, mm),
    "nesterov": lambda P, lr, mm: C.nesterov(P, lr, mm),
    "adagrad": lambda P, lr, mm: C.adagrad(P, lr),
    "fsadagrad": lambda P, lr, mm: C.fsadagrad(P, lr, mm),
    "rmsprop": lambda P, lr, mm: C.rmsprop(P, lr, 0.9, 2, 0.5, 10, 0.01),
    "adadelta": lambda P, lr, mm: C.adadelta(P, lr),
    "adam": lambda P, lr, mm: C.adam(P, lr, mm),
    "universal": lambda P, lr, mm: _universal(P),
    "sgd_with_noise": lambda P, lr, mm: C.sgd(P, lr, gaussian_noise_injection_std_dev=0.1),
    "data_parallel": lambda P, lr, mm: C.train.distributed.data_parallel_distributed_learner(C.sgd(P, lr)),
}


@pytest.mark.parametrize("kind", sorted(LEARNERS))
def test_builtin_learner_takes_one_seed(kind):
    m = _model()
    LEARNERS[kind](m.parameters, C.learning_parameter_schedule(0.1), C.momentum_schedule(0.9))
    assert cntk_py.get_random_seed() == 2
    assert _next_dense_sum() == pytest.approx(SEED2_SUM, abs=1e-5)


def test_no_learner_leaves_the_seed():
    _model()
    C.learning_parameter_schedule(0.1)
    C.logging.ProgressPrinter(0)
    assert _next_dense_sum() == pytest.approx(SEED1_SUM, abs=1e-5)


def test_two_learners_take_two_seeds():
    m = _model()
    C.sgd(m.parameters, C.learning_parameter_schedule(0.1))
    C.sgd(m.parameters, C.learning_parameter_schedule(0.1))
    assert cntk_py.get_random_seed() == 3


def test_user_learner_takes_no_seed():
    m = _model()
    _NoOpLearner(m.parameters, C.learning_parameter_schedule(0.1))
    assert _next_dense_sum() == pytest.approx(SEED1_SUM, abs=1e-5)


def test_fixed_seed_is_not_advanced_by_learners():
    m = _model()
    cntk_py.set_fixed_random_seed(5)
    C.sgd(m.parameters, C.learning_parameter_schedule(0.1))
    C.sgd(m.parameters, C.learning_parameter_schedule(0.1))
    assert _next_dense_sum() == pytest.approx(SEED5_SUM, abs=1e-5)


def _noisy_parameters(noise):
    """The parameters of a small net after 3 sgd steps with gaussian_noise_injection_std_dev=noise."""
    x = C.input_variable(4)
    y = C.input_variable(2)
    z = C.layers.Sequential([C.layers.Dense(3, activation=C.tanh, init=C.glorot_uniform(seed=1)),
                             C.layers.Dense(2, init=C.glorot_uniform(seed=2))])(x)
    loss = C.squared_error(z, y)
    rs = np.random.RandomState(0)
    X, Y = rs.rand(5, 4).astype(np.float32), rs.rand(5, 2).astype(np.float32)
    learner = C.sgd(z.parameters, C.learning_parameter_schedule(0.1), gaussian_noise_injection_std_dev=noise)
    trainer = C.Trainer(z, (loss, loss), [learner])
    for _ in range(3):
        trainer.train_minibatch({x: X, y: Y})
    return z.parameters


def test_noise_injection_draws_cntks_numbers():
    # CNTK 2.7, this script: each parameter gets N(0, std) noise seeded with the learner's seed plus a counter
    # advanced by every parameter of every update, in the learner's parameter order
    parameters = _noisy_parameters(0.01)
    expected = {(3, 2): [0.6452896, 0.41709894, 0.25732854], (2,): [0.39941442, 0.5888658],
                (4, 3): [-0.50910586, -0.5598995, -0.32260752], (3,): [0.45942515, 0.21247873, -0.46861312]}
    for p in parameters:
        np.testing.assert_allclose(p.value.ravel()[:3], expected[p.shape], rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("noise, expected", [
    ([0.01, 0.0], {(3, 2): [0.64529, 0.417099, 0.257329], (2,): [0.399414, 0.588866],
                   (4, 3): [-0.509106, -0.5599, -0.322608], (3,): [0.459425, 0.212479, -0.468613]}),
    ([0.0], {(3, 2): [0.63309, 0.421009, 0.282158], (2,): [0.398685, 0.603342],
             (4, 3): [-0.478655, -0.565255, -0.349155], (3,): [0.438489, 0.210824, -0.473937]}),
])
def test_noise_injection_std_dev_as_a_list_schedule(noise, expected):
    # CNTK 2.7 takes the noise's std-dev as a schedule list too (CapsNet-CNTK passes [0.0] to adam); values from
    # CNTK 2.7 on the model of the test above (a list's unit is a sweep: [0.01, 0.0] injects the noise of 0.01
    # there, [0.0] none)
    parameters = _noisy_parameters(noise)
    for p in parameters:
        np.testing.assert_allclose(p.value.ravel()[:3], expected[p.shape], rtol=1e-5, atol=2e-6)
