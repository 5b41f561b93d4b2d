"""A user learner as CNTK 2.7's native trainer drives it. CNTK's native learner base counts samples, minibatches and
sweeps in its built-in learners' update only, so a UserLearner's counts stay 0 and its ``learning_rate()`` stays its
schedule's value at sample 0 (an `[0.1, 0.05, 0.01]` schedule of epoch size 10 gives 0.1 after 32 samples, where
`sgd` moves on to 0.05 after 8). An exception in its ``update`` called by the Trainer is printed with its traceback
and raised as RuntimeError('SWIG director method error.'), as through CNTK's SWIG director. Values are what CNTK 2.7
printed for the same calls. (CNTK's Trainer then reports 0 samples seen too, and a training session with a user
learner never reaches its max_samples; cntk-compat's Trainer keeps its own count, docs/REALCLIENTS.md.)"""
import numpy as np
import pytest

import cntk as C


class PlainUserSGD(C.UserLearner):
    def update(self, gradient_values, training_sample_count, sweep_end):
        self.rates = getattr(self, "rates", []) + [self.learning_rate()]
        for p, g in gradient_values.items():
            p.value = p.value - self.learning_rate() * g.to_ndarray()
        return True


class FailingUserSGD(C.UserLearner):
    def update(self, gradient_values, training_sample_count, sweep_end):
        for p, g in gradient_values.items():
            p.value = p.value - self.learning_rate() * g      # a float times an NDArrayView: a TypeError
        return True


def _model():
    x = C.input_variable(2)
    return x, C.layers.Dense(1, init=C.glorot_uniform(seed=1))(x)


def test_the_schedule_and_the_counts_of_a_user_learner_do_not_move():
    x, z = _model()
    learner = PlainUserSGD(z.parameters, C.learning_parameter_schedule([0.1, 0.05, 0.01], epoch_size=10))
    trainer = C.Trainer(z, (C.reduce_sum(z), None), [learner])
    for _ in range(8):
        trainer.train_minibatch({x: np.ones((4, 2), np.float32)})
    assert learner.rates == [0.1] * 8 and learner.learning_rate() == 0.1
    trainer.train_minibatch({x: np.ones((4, 2), np.float32)}, is_sweep_end=True)
    assert (learner.total_number_of_samples_seen(), learner.total_number_of_minibatches_seen(),
            learner.total_number_of_sweeps_seen()) == (0, 0, 0)
    assert trainer.previous_minibatch_sample_count == 4
    learner.reset_learning_rate(C.learning_parameter_schedule([0.3, 0.2], epoch_size=2))
    trainer.train_minibatch({x: np.ones((3, 2), np.float32)})
    assert learner.learning_rate() == 0.3
    sgd = C.sgd(z.parameters, C.learning_parameter_schedule([0.1, 0.05, 0.01], epoch_size=10))
    trainer = C.Trainer(z, (C.reduce_sum(z), None), [sgd])
    rates = []
    for _ in range(4):
        trainer.train_minibatch({x: np.ones((4, 2), np.float32)})
        rates.append(sgd.learning_rate())
    assert rates == [0.1, 0.1, 0.05, 0.05] and sgd.total_number_of_samples_seen() == 16


def test_an_error_in_update_reaches_the_caller_as_a_swig_director_error(capfd):
    x, z = _model()
    learner = FailingUserSGD(z.parameters, C.learning_parameter_schedule(0.1))
    trainer = C.Trainer(z, (C.reduce_sum(z), None), [learner])
    with pytest.raises(RuntimeError) as info:
        trainer.train_minibatch({x: np.ones((4, 2), np.float32)})
    assert str(info.value) == "SWIG director method error."
    err = capfd.readouterr().err
    assert "TypeError: unsupported operand type(s) for *: 'float' and 'NDArrayView'" in err
    assert "Traceback (most recent call last)" in err
    gradients = {p: C.NDArrayView.from_dense(np.ones(p.shape, np.float32)) for p in z.parameters}
    with pytest.raises(TypeError):       # called directly, the update raises the user's own exception
        learner.update(gradients, 4, False)
