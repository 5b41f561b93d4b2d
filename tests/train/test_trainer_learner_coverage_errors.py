"""The Trainer's refusals of learners that share a parameter or name a foreign one: CNTK 2.7's ValueError
texts, announced on stderr as its native library announces them."""
import pytest

import cntk as C


def _model():
    x = C.input_variable(4)
    h = C.layers.Dense(8)(x)
    return h, C.layers.Dense(2)(h)


def test_a_parameter_in_two_learners(capfd):
    h, z = _model()
    with pytest.raises(ValueError) as e:
        C.Trainer(z, (C.reduce_sum(z), None), [C.sgd(h.parameters, 0.1), C.sgd(z.parameters, 0.1)])
    message = "Parameter 'Parameter('W', [], [4 x 8])' is covered by 2 different learners"
    assert str(e.value).split('\n')[0] == message
    assert "About to throw exception '%s'" % message in capfd.readouterr().err


def test_a_learner_parameter_outside_the_model(capfd):
    h, z = _model()
    other = C.parameter((3,), name='other')
    with pytest.raises(ValueError) as e:
        C.Trainer(z, (C.reduce_sum(z), None), [C.sgd(z.parameters + (other,), 0.1)])
    message = ("Trainer ctor: 1 of the learner parameters 'Parameter('other', [], [3])' are not part of the model "
               "specified")
    assert str(e.value).split('\n')[0] == message
    assert "About to throw exception '%s'" % message in capfd.readouterr().err
