"""The samples a Trainer counts per minibatch, and the hyper-parameter lines it prints, as in CNTK 2.7."""
import numpy as np
import pytest

import cntk as C


@pytest.fixture
def model():
    x = C.sequence.input_variable(3)
    y = C.input_variable(2)
    z = C.layers.Dense(2)(C.sequence.last(x))
    data = {x: [np.ones((k, 3), np.float32) for k in (2, 5, 4)], y: np.ones((3, 2), np.float32)}
    return z, y, data


@pytest.mark.parametrize("scalar", [False, True])
def test_scalar_loss_counts_the_first_batched_variable_below_it(model, scalar):
    # CNTK 2.7 counts 3 (the sequences reaching squared_error) for all three losses, not the 11 steps of x
    z, y, data = model
    loss = C.squared_error(z, y)
    if scalar:
        loss = 1 - C.reduce_sum(loss, axis=C.Axis.all_axes())
    trainer = C.Trainer(z, (loss, None), C.sgd(z.parameters, C.learning_parameter_schedule(0.0)))
    trainer.train_minibatch(data)
    assert trainer.previous_minibatch_sample_count == 3


def test_distributed_learner_prints_no_learning_rate(model, capsys):
    z, y, data = model
    local = C.sgd(z.parameters, C.learning_parameter_schedule_per_sample(0.1))
    learner = C.distributed.data_parallel_distributed_learner(local)
    trainer = C.Trainer(z, (C.squared_error(z, y), None), learner, C.logging.ProgressPrinter(freq=1))
    trainer.train_minibatch(data)
    assert "Learning rate" not in capsys.readouterr().out
    plain = C.Trainer(z, (C.squared_error(z, y), None), C.sgd(z.parameters, C.learning_parameter_schedule_per_sample(0.1)),
                      C.logging.ProgressPrinter(freq=1))
    plain.train_minibatch(data)
    assert "Learning rate per 1 samples: 0.1" in capsys.readouterr().out
