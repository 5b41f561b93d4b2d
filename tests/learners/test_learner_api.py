import numpy as np
import pytest
import torch

import cntk as C
import cntk.learners
import cntk.logging
from cntk.learners import (IGNORE, UnitType, adadelta, adagrad, adam, fsadagrad, learning_parameter_schedule,
                           learning_rate_schedule, momentum_schedule, momentum_sgd, nesterov, rmsprop, sgd)
from cntk.ops import parameter


def w1(init=1.0, dtype=np.float32):
    return parameter(shape=(1,), init=init, dtype=dtype)


ALL_LEARNERS = [
    lambda ps: adadelta(ps),
    lambda ps: adagrad(ps, lr=learning_parameter_schedule(1)),
    lambda ps: adam(ps, lr=learning_parameter_schedule(1), momentum=momentum_schedule(0.9)),
    lambda ps: fsadagrad(ps, lr=learning_parameter_schedule(1), momentum=momentum_schedule(0.9)),
    lambda ps: nesterov(ps, lr=learning_parameter_schedule(1), momentum=momentum_schedule(0.9)),
    lambda ps: rmsprop(ps, lr=learning_parameter_schedule(1), gamma=0.1, inc=3.0, dec=0.1, max=np.inf, min=1e-8),
    lambda ps: sgd(ps, lr=learning_parameter_schedule(1)),
    lambda ps: momentum_sgd(ps, lr=learning_parameter_schedule(1), momentum=momentum_schedule(0.9)),
]


def test_reference_minibatch_sizes_and_compatible_mode():
    w = w1()
    learner = sgd([w], lr=learning_rate_schedule(0.1, UnitType.sample))
    assert learner._learning_rate_schedule.minibatch_size == 1 and learner.learning_rate() == 0.1
    learner = sgd([w], lr=learning_rate_schedule(0.1, UnitType.minibatch))
    assert not learner.is_compatible_mode() and learner.minibatch_size == IGNORE
    learner = sgd([w], lr=0.1, minibatch_size=25)
    assert learner.minibatch_size == 25 and learner._learning_rate_schedule.minibatch_size == 25
    learner = sgd([w], lr=learning_parameter_schedule(0.1, 20), minibatch_size=25)
    assert learner._learning_rate_schedule.minibatch_size == 20
    learner = sgd([w], lr=learning_parameter_schedule(0.1), minibatch_size=IGNORE)
    assert learner.is_compatible_mode() and learner._learning_rate_schedule.minibatch_size == IGNORE
    with pytest.warns(DeprecationWarning):
        learner = sgd([w], lr=learning_rate_schedule(0.1, UnitType.sample), use_mean_gradient=True)
    assert learner.is_compatible_mode() and learner._learning_rate_schedule.minibatch_size == IGNORE
    learner = sgd([w], lr=0.1)
    learner.reset_learning_rate(learning_rate_schedule([1, 2, 3], UnitType.minibatch))
    assert learner.learning_rate() == 1.0
    learner.minibatch_size = IGNORE
    assert learner.is_compatible_mode()
    myadam = adam([w], lr=[0.4, 0.1, 0.001], momentum=[0.9, 0.1, 0.001], variance_momentum=[0.9],
                  minibatch_size=32, epoch_size=512)
    s = myadam._learning_rate_schedule
    assert (s.minibatch_size, s[0], s[512], s[1024]) == (32, 0.4, 0.1, 0.001)


def test_learning_rate_follows_samples_and_reset():
    w = w1()
    learner = sgd([w], lr=learning_parameter_schedule([0.1] * 50 + [0.2] * 50, minibatch_size=1, epoch_size=1))
    assert learner.learning_rate() == 0.1
    assert learner.update({w: np.asarray([[2.]], dtype=np.float32)}, 100)
    assert learner.learning_rate() == 0.2 and w.value[0] < 1
    learner.reset_learning_rate(learning_parameter_schedule([0.3] * 50 + [0.4] * 50, minibatch_size=1,
                                                            epoch_size=1))
    assert learner.learning_rate() == 0.3
    learner.update({w: np.asarray([[2.]], dtype=np.float32)}, 100)
    assert learner.learning_rate() == 0.4
    assert learner.total_number_of_samples_seen() == 200 and learner.total_number_of_minibatches_seen() == 2


def test_sweep_based_schedule_and_stop_at_zero():
    w = w1()
    learner = sgd([w], C.learners.learning_parameter_schedule_per_sample([0.3, 0.2, 0.0]))
    learner.update({w: np.ones(1, np.float32)}, 5, is_sweep_end=False)
    assert learner.learning_rate() == 0.3
    learner.update({w: np.ones(1, np.float32)}, 5, is_sweep_end=True)
    assert learner.learning_rate() == 0.2
    learner.update({w: np.ones(1, np.float32)}, 5, is_sweep_end=True)
    before = w.value.copy()
    assert learner.update({w: np.ones(1, np.float32)}, 5) is False
    assert np.array_equal(before, w.value)


def test_rate_scaling_rules():
    g = np.ones(1, np.float32)
    cases = [(dict(lr=0.1), 8, -0.1 / 8),                              # per minibatch: lr / actual size
             (dict(lr=0.1, minibatch_size=4), 8, -0.1 / 4),            # reference size 4
             (dict(lr=C.learners.learning_parameter_schedule_per_sample(0.1)), 8, -0.1),
             (dict(lr=0.1, minibatch_size=IGNORE), 8, -0.1 / 8)]        # compatible: mean gradient
    for kwargs, n, expected in cases:
        w = w1(0.0)
        sgd([w], **kwargs).update({w: g}, n)
        assert w.value[0] == pytest.approx(expected), kwargs


def test_momentum_rescaled_to_minibatch_size():
    w = w1(0.0)
    learner = momentum_sgd([w], lr=C.learners.learning_parameter_schedule_per_sample(1.0),
                           momentum=momentum_schedule(0.9, minibatch_size=1), unit_gain=False)
    g = np.ones(1, np.float32)
    learner.update({w: g}, 2)
    learner.update({w: g}, 2)
    assert w.value[0] == pytest.approx(-(1 + (0.81 * 1 + 1)))  # momentum 0.9 per sample -> 0.81 per 2


def test_regularization_and_clipping():
    g = np.full(1, 3.0, np.float32)
    w = w1(1.0)
    sgd([w], lr=0.5, l2_regularization_weight=0.1).update({w: g}, 2)
    assert w.value[0] == pytest.approx(1.0 - 0.5 / 2 * (3.0 + 0.1 * 2 * 1.0))
    w = w1(1.0)
    sgd([w], lr=0.5, gradient_clipping_threshold_per_sample=1.0).update({w: g}, 2)
    assert w.value[0] == pytest.approx(1.0 - 0.5 / 2 * 2.0)
    w = parameter(shape=(2,), init=np.zeros(2, np.float32))
    sgd([w], lr=1.0, gradient_clipping_threshold_per_sample=2.5,
        gradient_clipping_with_truncation=False).update({w: np.array([3.0, 4.0], np.float32)}, 1)
    assert np.allclose(w.value, [-1.5, -2.0])
    w = parameter(shape=(2,), init=np.array([1.0, -0.01], np.float32))
    sgd([w], lr=0.5, l1_regularization_weight=0.1).update({w: np.zeros(2, np.float32)}, 2)
    assert np.allclose(w.value, [1.0 - 0.5 / 2 * 0.1 * 2, 0.0])


def _torch_reference(optimizer_cls, steps, **kwargs):
    p = torch.nn.Parameter(torch.zeros(3, dtype=torch.float64))
    opt = optimizer_cls([p], **kwargs)
    for g in steps:
        p.grad = torch.as_tensor(g)
        opt.step()
    return p.detach().numpy()


@pytest.mark.parametrize("make, reference", [
    (lambda ps: momentum_sgd(ps, 0.1, 0.9, unit_gain=False),
     lambda steps: _torch_reference(torch.optim.SGD, steps, lr=0.1, momentum=0.9)),
    (lambda ps: nesterov(ps, 0.1, 0.9, unit_gain=False),
     lambda steps: _torch_reference(torch.optim.SGD, steps, lr=0.1, momentum=0.9, nesterov=True)),
    (lambda ps: adam(ps, 0.1, 0.9, unit_gain=True, variance_momentum=0.99, epsilon=0.0),
     lambda steps: _torch_reference(torch.optim.Adam, steps, lr=0.1, betas=(0.9, 0.99), eps=0.0)),
])
def test_matches_torch_optimizers(make, reference):
    rng = np.random.RandomState(0)
    steps = [rng.randn(3) for _ in range(5)]
    w = parameter(shape=(3,), init=np.zeros(3), dtype=np.float64)
    learner = make([w])
    for g in steps:
        learner.update({w: g}, 1)
    assert np.allclose(w.value, reference(steps), rtol=1e-10, atol=1e-12)


def test_mixed_dtypes_and_torch_gradients():
    a = parameter(shape=(2, 2), init=1.0, dtype=np.float64)
    b = parameter(shape=(3,), init=1.0, dtype=np.float32)
    learner = adam([a, b], lr=0.01, momentum=0.9)
    learner.update({a: torch.ones(2, 2, dtype=torch.float64), b: np.ones(3, np.float32)}, 4)
    assert a.value.dtype == np.float64 and b.value.dtype == np.float32
    assert np.all(a.value < 1) and np.all(b.value < 1)
    assert learner.parameters() == learner.parameters == [a, b]


@pytest.mark.parametrize("make", ALL_LEARNERS)
def test_state_dict_round_trip(make):
    rng = np.random.RandomState(1)
    grads = [rng.randn(2, 3).astype(np.float32) for _ in range(6)]
    w, v = parameter(shape=(2, 3), init=0.5), parameter(shape=(2, 3), init=0.5)
    la, lb = make([w]), make([v])
    for g in grads[:3]:
        la.update({w: g}, 4)
    state = la.state_dict()
    assert all(isinstance(x, (int, float, bool, str, list, dict, torch.Tensor, type(None)))
               for x in state.values())
    v.value = w.value
    lb.load_state_dict(state)
    for g in grads[3:]:
        la.update({w: g}, 4)
        lb.update({v: g}, 4)
    assert np.array_equal(w.value, v.value)


def test_noise_injection_with_checkpointing():
    shape = (10, 10)
    init = np.random.RandomState(2).rand(*shape).astype(np.float32)
    w1_, w2_, w3_ = (parameter(shape=shape, init=init) for _ in range(3))
    lr = C.learners.learning_parameter_schedule_per_sample(0.5)
    m = momentum_schedule(0.99)
    l1, l2, l3 = (momentum_sgd([w], lr, m, gaussian_noise_injection_std_dev=0.5) for w in (w1_, w2_, w3_))
    for _ in range(5):
        checkpoint = l1.create_checkpoint()
        g = np.random.rand(*shape).astype(np.float32)
        l1.update({w1_: g}, 1)
        l2.update({w2_: g}, 1)
        assert not np.allclose(w1_.value, w2_.value)
        l3.restore_from_checkpoint(checkpoint)
        l3.update({w3_: g}, 1)
        assert np.allclose(w1_.value, w3_.value)


class RecordingWriter(C.logging.ProgressWriter):
    def __init__(self):
        super(RecordingWriter, self).__init__(1, 0, 1, 0, 2 ** 62, 0)
        self.log = []

    def write(self, key, value):
        self.log.append((key, float(value)))


def test_learner_reports_changed_hyper_parameters():
    w = w1()
    writer = RecordingWriter()
    learner = momentum_sgd([w], C.learners.learning_parameter_schedule_per_sample([0.3, 0.2, 0.1, 0], epoch_size=1),
                           momentum_schedule([0.6, 0.7, 0.8], epoch_size=1))
    learner.add_progress_writers([writer])
    for _ in range(10):
        learner.update({w: np.ones(1, np.float32)}, 1)
    assert [v for _, v in writer.log] == [0.3, 0.6, 0.2, 0.7, 0.1, 0.8, 0.0]
    assert writer.log[0][0] == "Learning rate per 1 samples" and writer.log[1][0] == "Momentum per minibatch"


def test_bad_arguments():
    w = w1()
    with pytest.raises(ValueError, match="must not be empty"):
        sgd([], 0.1)
    with pytest.raises(TypeError, match="parameters"):
        sgd([np.ones(2)], 0.1)
    with pytest.raises(TypeError, match="parameters"):
        sgd(w, 0.1)
    with pytest.raises(ValueError, match="more than once"):
        sgd([w, w], 0.1)
    with pytest.raises(ValueError, match="non-negative"):
        sgd([w], -0.1)
    with pytest.raises(ValueError, match="lr type"):
        sgd([w], "fast")
    with pytest.raises(ValueError, match="momentum type"):
        momentum_sgd([w], 0.1, momentum="high")
    with pytest.raises(ValueError, match="l2_regularization_weight"):
        sgd([w], 0.1, l2_regularization_weight=-1)
    with pytest.raises(ValueError, match="minibatch_size"):
        sgd([w], 0.1, minibatch_size=-3)
    with pytest.raises(ValueError, match="rho"):
        adadelta([w], rho=2.0)
    learner = sgd([w], 0.1)
    with pytest.raises(ValueError, match="no gradient"):
        learner.update({}, 1)
    with pytest.raises(ValueError, match="training_sample_count"):
        learner.update({w: np.ones(1, np.float32)}, 0)
    with pytest.raises(ValueError, match="shape"):
        learner.update({w: np.ones(3, np.float32)}, 1)
    with pytest.raises(TypeError, match="gradient_values"):
        learner.update([np.ones(1)], 1)
    with pytest.raises(ValueError, match="learning_rate type"):
        learner.reset_learning_rate(0.5)


def test_serialization_versions_are_cntks():
    # CNTK 2.7: Learner.current_version() 3 for every learner, 2 for schedules, 3 for a Function
    for make in ALL_LEARNERS:
        assert make([w1()]).current_version() == 3
    assert learning_parameter_schedule(0.1).current_version() == 2
    assert momentum_schedule(0.9).current_version() == 2
    assert C.minibatch_size_schedule(4).current_version() == 2
    x = C.input_variable(2)
    assert C.layers.Dense(2)(x).current_version() == 3
