"""float16 parameters: CNTK 2.7's AdaDelta keeps float32 accumulators for them (LearnerAdaDelta::Update<half,
float>), and a Trainer whose loss is float16 warns on stderr (checked against CNTK 2.7, whose CPU build then
fails inside AdaDelta<half>; CNTK trains float16 on GPUs)."""
import numpy as np

import cntk as C
from cntk.learners import adadelta, learning_parameter_schedule_per_sample


def test_adadelta_float16_accumulates_in_float32():
    values = np.array([[0.5, -0.25, 0.125], [1.0, 0.0, -2.0]], np.float16)
    grads = [np.array([[0.0, 0.5, -1.0], [2.0, 0.0, 1e-3]], np.float16),
             np.array([[0.0, -0.25, 0.75], [1.5, 0.0, 0.0]], np.float16)]
    w16 = C.parameter(shape=values.shape, init=values, dtype=np.float16)
    learner = adadelta([w16], learning_parameter_schedule_per_sample(1))
    for g in grads:
        learner.update({w16: g}, 1)
        assert w16.value.dtype == np.float16 and np.all(np.isfinite(w16.value))
    # zero gradients leave their values as they are (float16 accumulators made them 0/0 = NaN)
    assert w16.value[0, 0] == np.float16(0.5) and w16.value[1, 1] == np.float16(0.0)
    # a nonzero gradient moves its value by the float32 AdaDelta step, sqrt(eps)/sqrt((1-rho) g^2 + eps) * g
    # on the first update (in float16, eps = 1e-8 is 0 and the step would be g/|g| * 0)
    w = C.parameter(shape=(1,), init=np.array([1.0], np.float16), dtype=np.float16)
    adadelta([w], learning_parameter_schedule_per_sample(1)).update({w: np.array([0.5], np.float16)}, 1)
    g, rho, eps = np.float32(0.5), np.float32(0.95), np.float32(1e-8)
    step = np.sqrt(eps) / np.sqrt((np.float32(1) - rho) * g * g + eps) * g
    assert w.value[0] == np.float16(np.float32(1.0) - step) and w.value[0] != np.float16(1.0)


def test_float16_training_does_not_produce_nan():
    C.cntk_py.set_fixed_random_seed(1)
    with C.default_options(dtype=np.float16):
        x = C.input_variable(20)
        y = C.input_variable(4)
        z = C.layers.Sequential([C.layers.Dense(16, activation=C.relu), C.layers.Dense(4)])(x)
        ce = C.cross_entropy_with_softmax(z, y)
    trainer = C.Trainer(z, (ce, None), adadelta(z.parameters, learning_parameter_schedule_per_sample(1)))
    rng = np.random.RandomState(0)
    data = rng.rand(64, 20).astype(np.float16)
    labels = np.eye(4, dtype=np.float16)[np.argmax(data[:, :4], axis=1)]
    losses = []
    for _ in range(20):
        trainer.train_minibatch({x: data, y: labels})
        losses.append(trainer.previous_minibatch_loss_average)
    assert np.all(np.isfinite(losses)) and losses[-1] < losses[0]


def test_trainer_with_float16_loss_warns_like_cntk(capfd):
    with C.default_options(dtype=np.float16):
        x = C.input_variable(4)
        y = C.input_variable(2)
        z = C.layers.Dense(2)(x)
        ce = C.cross_entropy_with_softmax(z, y)
    capfd.readouterr()
    C.Trainer(z, (ce, None), C.sgd(z.parameters, C.learning_parameter_schedule(0.1)))
    warning = "WARNING: using Float16 for loss function may cause overflow, please cast to float"
    assert capfd.readouterr().err == warning          # no newline, as CNTK 2.7 prints it
    C.Trainer(z, (ce, None), C.sgd(z.parameters[:1], C.learning_parameter_schedule(0.1)))
    assert capfd.readouterr().err.startswith(warning + "[Note:] Trainer ctor: 1 of the model parameters")
    C.Trainer(z, (C.cast(ce, np.float32), None), C.sgd(z.parameters, C.learning_parameter_schedule(0.1)))
    C.Evaluator(ce)
    assert capfd.readouterr().err == ""
