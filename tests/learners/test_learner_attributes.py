"""Learner attributes scripts inspect, as CNTK 2.7 reports them (expected values from CNTK 2.7)."""
import cntk as C


def _params():
    x = C.input_variable(2)
    return C.layers.Dense(2)(x).parameters


def test_minibatch_size_attributes():
    p = _params()
    rows = []
    for learner in (C.sgd(p, 0.1), C.sgd(p, C.learning_parameter_schedule_per_sample(0.1)),
                    C.sgd(p, 0.1, minibatch_size=8), C.sgd(p, 0.1, minibatch_size=C.learners.IGNORE),
                    C.sgd(p, C.learning_parameter_schedule(0.1, minibatch_size=5))):
        rows.append((learner.is_minibatch_size_explicitly_specified, learner.minibatch_size,
                     learner.is_compatible_mode(), learner.ignored_minibatch_size))
    assert rows == [(False, 0, False, 0), (False, 0, False, 0), (True, 8, False, 0), (True, 0, True, 0),
                    (False, 0, False, 0)]


def test_setting_minibatch_size_later_is_not_explicit():
    learner = C.sgd(_params(), 0.1)
    learner.minibatch_size = 7
    assert (learner.minibatch_size, learner.is_minibatch_size_explicitly_specified) == (7, False)
    assert learner.set_need_to_update_master_parameter() is None
