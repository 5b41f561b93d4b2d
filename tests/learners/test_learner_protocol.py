"""The learner protocol the Trainer uses (docs/ARCHITECTURE.md, "How to write a learner"): public methods only."""
import numpy as np

import cntk as C
from cntk_compat.distributed.learner import DistributedLearner

X = np.array([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]], np.float32)
Y = np.array([[1.0], [0.0], [2.0]], np.float32)


def _criterion():
    x = C.input_variable(2)
    y = C.input_variable(1)
    w = C.parameter((2, 1), init=np.array([[0.1], [-0.2]], np.float32))
    z = C.times(x, w)
    return x, y, w, z, C.squared_error(z, y)


def _expected_w_after_one_sgd_step(lr):
    w = np.array([[0.1], [-0.2]], np.float32)
    grad = 2 * X.T @ (X @ w - Y)    # the gradient of the summed loss
    return w - lr * grad


class PlainSGD(object):
    """Not derived from any cntk class: only what the protocol asks for."""

    def __init__(self, parameters, lr):
        self._parameters = list(parameters)
        self._lr = lr
        self.calls = []
        self.parameters_asked = 0

    @property
    def parameters(self):
        self.parameters_asked += 1
        return list(self._parameters)

    def update(self, gradient_values, training_sample_count, is_sweep_end=False):
        self.calls.append((training_sample_count, is_sweep_end))
        for p, g in gradient_values.items():
            p.value = p.value - self._lr * np.asarray(g.detach().cpu())
        return True

    def learning_rate(self):
        return self._lr

    def reset_learning_rate(self, learning_rate):
        self._lr = learning_rate

    def add_progress_writers(self, progress_writers):
        pass

    def state_dict(self):
        return {"lr": self._lr}

    def load_state_dict(self, state):
        self._lr = state["lr"]


def test_any_object_with_the_protocol_trains_with_the_trainer(tmp_path):
    x, y, w, z, loss = _criterion()
    learner = PlainSGD(z.parameters, 0.05)
    trainer = C.Trainer(z, (loss, None), [learner])
    trainer.train_minibatch({x: X, y: Y}, is_sweep_end=True)
    assert learner.calls == [(3, True)]
    assert learner.parameters_asked == 1  # by the Trainer, once, when it is made
    np.testing.assert_allclose(w.value, _expected_w_after_one_sgd_step(0.05), rtol=1e-5)
    trainer.save_checkpoint(str(tmp_path / "ckp"))
    learner.reset_learning_rate(1.0)
    trainer.restore_from_checkpoint(str(tmp_path / "ckp"))
    assert learner.learning_rate() == 0.05


class NumpySGD(C.learners.UserLearner):
    def update(self, gradient_values, training_sample_count, sweep_end):
        self.seen = [type(g) for g in gradient_values.values()]
        for p, g in gradient_values.items():
            p.value = p.value - self.learning_rate() * g.asarray()
        return True


class CountingNumpySGD(NumpySGD):
    def update(self, gradient_values, training_sample_count, sweep_end):
        self.counted = training_sample_count
        return super(CountingNumpySGD, self).update(gradient_values, training_sample_count, sweep_end)


def test_a_user_learner_gets_ndarrayview_gradients_once_and_counts_nothing():
    x, y, w, z, loss = _criterion()
    learner = CountingNumpySGD(z.parameters, C.learning_parameter_schedule(0.05))
    trainer = C.Trainer(z, (loss, None), [learner])
    trainer.train_minibatch({x: X, y: Y})
    assert learner.seen == [C.NDArrayView] and learner.counted == 3      # CNTK 2.7's type, as_numpy or not
    np.testing.assert_allclose(w.value, _expected_w_after_one_sgd_step(0.05), rtol=1e-5)
    trainer.train_minibatch({x: X, y: Y}, is_sweep_end=True)
    # CNTK 2.7 counts in its built-in learners' update only (tests/learners/test_user_learner_counts.py)
    assert (learner.total_number_of_samples_seen(), learner.total_number_of_minibatches_seen(),
            learner.total_number_of_sweeps_seen()) == (0, 0, 0)


class RecordingDistributedLearner(DistributedLearner):
    """A distributed learner written against the public hooks: it sees the forward/backward pass and the
    minibatch info, and updates locally."""

    def __init__(self, learner):
        super(RecordingDistributedLearner, self).__init__(learner)
        self.events = []

    def forward_backward(self, run_forward, loss_function, gradients):
        self.events.append(("forward_backward", loss_function.output.shape))
        return super(RecordingDistributedLearner, self).forward_backward(run_forward, loss_function, gradients)

    def _distributed_minibatch(self, gradient_values, info):
        self.events.append(("update_minibatch", info.num_samples, round(float(info.loss), 4)))
        self._samples_seen += info.num_samples
        return self._learner.update(gradient_values, info.num_samples, info.is_sweep_end)

    def worker_state(self):
        return {"events": len(self.events)}


def test_the_trainer_drives_a_distributed_learner_through_its_public_hooks(tmp_path):
    x, y, w, z, loss = _criterion()
    learner = RecordingDistributedLearner(C.sgd(z.parameters, C.learning_parameter_schedule(0.05, 1)))
    trainer = C.Trainer(z, (loss, None), [learner])
    trainer.train_minibatch({x: X, y: Y})
    summed_loss = float(np.sum((X @ np.array([[0.1], [-0.2]]) - Y) ** 2))
    assert learner.events == [("forward_backward", ()), ("update_minibatch", 3, round(summed_loss, 4))]
    np.testing.assert_allclose(w.value, _expected_w_after_one_sgd_step(0.05), rtol=1e-5)
    assert trainer.total_number_of_samples_seen == 3
