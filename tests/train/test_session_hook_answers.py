"""A TrainingSession's hooks that answer whether to go on must answer with a Python bool, and its constructor needs
its three configs, as CNTK 2.7's native session requires (messages and types observed under CNTK 2.7)."""
import numpy as np
import pytest

import cntk as C


def _trainer_and_source():
    x, y = C.input_variable(2), C.input_variable(2)
    z = C.times(x, C.parameter((2, 2)))
    loss = C.squared_error(z, y)
    trainer = C.Trainer(z, (loss, loss), [C.sgd(z.parameters, C.learning_parameter_schedule(0.1))])
    source = C.io.MinibatchSourceFromData(dict(x=np.ones((20, 2), np.float32), y=np.ones((20, 2), np.float32)))
    return trainer, source, {x: source.streams.x, y: source.streams.y}


@pytest.mark.parametrize("answer", [None, np.bool_(True), 1])
def test_a_cross_validation_callback_must_answer_with_a_bool(answer):
    trainer, source, streams = _trainer_and_source()
    session = C.training_session(trainer, source, 5, streams, max_samples=20,
                                 cv_config=C.train.CrossValidationConfig(None, frequency=10,
                                                                         callback=lambda *args: answer))
    with pytest.raises(RuntimeError, match=r"^SWIG director type mismatch in output value of type 'bool'$"):
        session.train()


def test_an_on_minibatch_end_override_must_answer_with_a_bool():
    trainer, source, streams = _trainer_and_source()
    calls = []

    class Session(C.train.TrainingSession):
        def on_minibatch_end(self):
            calls.append(1)

    session = Session(trainer, source, 5, streams, 20, None, C.train.CheckpointConfig(None),
                      C.train.CrossValidationConfig(None), C.train.TestConfig(None))
    with pytest.raises(RuntimeError, match="SWIG director type mismatch in output value of type 'bool'"):
        session.train()
    assert len(calls) == 1


def test_a_session_answering_true_trains_to_the_end():
    trainer, source, streams = _trainer_and_source()
    C.training_session(trainer, source, 5, streams, max_samples=20,
                       cv_config=C.train.CrossValidationConfig(None, frequency=10, callback=lambda *a: True)).train()
    assert trainer.total_number_of_samples_seen == 20


@pytest.mark.parametrize("missing, argument, kind", [(0, 9, "CheckpointConfig"), (1, 10, "CrossValidationConfig"),
                                                     (2, 11, "TestConfig")])
def test_the_constructor_needs_its_three_configs(missing, argument, kind):
    trainer, source, streams = _trainer_and_source()
    configs = [C.train.CheckpointConfig(None), C.train.CrossValidationConfig(None), C.train.TestConfig(None)]
    configs[missing] = None
    with pytest.raises(ValueError, match="invalid null reference in method 'new_TrainingSession', argument %d of "
                                         "type 'CNTK::%s const &'" % (argument, kind)):
        C.train.TrainingSession(trainer, source, 5, streams, 20, None, *configs)
