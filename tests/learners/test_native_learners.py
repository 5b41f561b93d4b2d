"""Learners built the way CNTK 2.7's own factories build them (and so third-party learners such as cntkx's RAdam):
schedules from cntk.learners' private helpers, a cntk_py.AdditionalLearningOptions filled field by field (the
reference minibatch size in dict_options as a SizeTWrapper), then cntk_py's native factory. Golden values: the
parameters CNTK 2.7 reached after three minibatches of squared error from w = [0.5, -0.25]."""
import numpy as np
import pytest

import cntk as C
from cntk import cntk_py
from cntk.learners import (_infer_learning_parameter_schedule, _infer_learning_rate_schedule_and_ref_minibatch_size,
                           _verify_learning_rate_type, _verify_momentum_type)


def _options(minibatch_size=None, l2=0.0):
    options = cntk_py.AdditionalLearningOptions()
    options.l2_regularization_weight = l2
    options.gaussian_noise_injection_std_dev = C.training_parameter_schedule(0.0)
    if minibatch_size is not None:
        options.dict_options[cntk_py.Learner._MINIBATCH_SIZE] = cntk_py.SizeTWrapper(minibatch_size)
    return options


def _lr(value, minibatch_size=None):
    return _infer_learning_rate_schedule_and_ref_minibatch_size(None, minibatch_size, value, None)[0]


def _param(value, minibatch_size=None):
    return _infer_learning_parameter_schedule(value, minibatch_size, None)


@pytest.mark.parametrize("make, minibatch_size, cntk_w", [
    (lambda p: cntk_py.sgd_learner(p, _lr(0.1), _options()), 0, [0.4440093, 0.1856111]),
    (lambda p: cntk_py.sgd_learner(p, _lr(0.1, 1), _options(1, l2=0.01)), 1, [0.3130092, 0.3731838]),
    (lambda p: cntk_py.momentum_sgd_learner(p, _lr(0.1), _param(0.9), True, _options()), 0,
     [0.4718628, -0.1344581]),
    (lambda p: cntk_py.nesterov_learner(p, _lr(0.1), _param(0.9), False, _options()), 0, [0.4768558, 0.5897254]),
    (lambda p: cntk_py.ada_delta_learner(p, _lr(1.0), 0.95, 1e-6, _options()), 0, [0.4955278, -0.245484]),
    (lambda p: cntk_py.ada_grad_learner(p, _lr(0.1), True, _options()), 0, [0.4317587, -0.0583358]),
    (lambda p: cntk_py.fsada_grad_learner(p, _lr(0.1), _param(0.9), True, _param(0.999), _options()), 0,
     [0.4688807, -0.2177723]),
    (lambda p: cntk_py.adam_learner(p, _lr([0.1, 0.05], 3), _param(0.9, 3), True, _param(0.999, 3), 1e-8, False,
                                    _options(3)), 3, [0.4086857, -0.1502763]),
    (lambda p: cntk_py.adam_learner(p, _lr(0.1), _param(0.9), True, _param(0.999), 1e-8, True, _options()), 0,
     [0.4227155, -0.1531998]),
    (lambda p: cntk_py.rmsprop_learner(p, _lr(0.1), 0.9, 1.2, 0.7, 10.0, 0.001, True, _options()), 0,
     [0.43451, 0.0244788]),
])
def test_native_factories_train_as_cntk(make, minibatch_size, cntk_w):
    x = C.input_variable(2)
    w = C.parameter((2, 1), init=np.array([[0.5], [-0.25]], np.float32))
    loss = C.squared_error(C.times(x, w), C.constant(np.array([1.0], np.float32)))
    learner = make([w])
    learner.is_minibatch_size_explicitly_specified = minibatch_size != 0
    trainer = C.Trainer(loss, (loss,), [learner])
    for _ in range(3):
        trainer.train_minibatch({x: np.array([[1, 2], [3, -1], [0.5, 0.5]], np.float32)})
    assert learner.minibatch_size == minibatch_size
    assert learner.is_minibatch_size_explicitly_specified == (minibatch_size != 0)
    np.testing.assert_allclose(w.value.ravel(), cntk_w, rtol=1e-5, atol=1e-6)


def test_private_schedule_helpers():
    schedule, reference = _infer_learning_rate_schedule_and_ref_minibatch_size(None, None, [1, 2], 2)
    assert (schedule.minibatch_size, reference, schedule[0], schedule[2], schedule[4]) == (0, None, 1.0, 2.0, 2.0)
    schedule, reference = _infer_learning_rate_schedule_and_ref_minibatch_size(True, None, 0.5, None)
    assert (schedule.minibatch_size, reference) == (0, 0)     # use_mean_gradient=True: IGNORE
    schedule = _param(0.9, 4)
    assert (schedule.minibatch_size, schedule.is_minibatch_size_explicitly_specified, schedule[0]) == (4, True, 0.9)
    _verify_learning_rate_type(schedule)
    for bad in (0.9, "x"):
        with pytest.raises(ValueError, match="momentum type"):
            _verify_momentum_type(bad)
    with pytest.raises(ValueError, match="not supported"):
        _param("x")


def test_native_layer_refuses_what_cntk_refuses():
    with pytest.raises(NotImplementedError, match="sgd_learner"):
        cntk_py.sgd_learner([C.parameter(1)], 0.1, _options())     # a number, not a schedule
    with pytest.raises(NotImplementedError, match="momentum_sgd_learner"):
        cntk_py.momentum_sgd_learner([C.parameter(1)], _lr(0.1), 0.9, True, _options())
    options = cntk_py.AdditionalLearningOptions()
    with pytest.raises(TypeError, match="gaussian_noise_injection_std_dev"):
        options.gaussian_noise_injection_std_dev = 0.5
    with pytest.raises(TypeError, match="l1_regularization_weight"):
        options.l1_regularization_weight = "a"
    with pytest.raises(TypeError, match="gradient_clipping_with_truncation"):
        options.gradient_clipping_with_truncation = 1
    options.dict_options[cntk_py.Learner._MINIBATCH_SIZE] = 5    # CNTK aborts on an int there
    with pytest.raises(TypeError, match="SizeTWrapper"):
        cntk_py.sgd_learner([C.parameter(1)], _lr(0.1), options)
