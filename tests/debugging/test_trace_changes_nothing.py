"""The computation network trace level and node timing change nothing, as in CNTK 2.7: a traced or timed
training draws the same dropout masks and keeps the same batch normalization statistics as an untraced one
(CNTK's InceptionV3_ImageNet.py example trains with trace level 1). Golden values: CNTK 2.7 on the same net, at
trace level 0 and at level 1 alike."""
import numpy as np
import pytest

import cntk as C
from cntk.debugging import set_computation_network_trace_level, set_node_timing

# a Dense -> BatchNormalization -> relu -> Dropout(0.5) -> Dense net trained 4 steps with sgd(0.1), then evaluated
LOSSES_CNTK27 = [1.4889888, 1.0406462, 0.8369192, 1.0029346]
EVAL_CNTK27 = [-0.080205, -0.319090, -0.401664, -1.119747, 0.378093, -1.353485]


@pytest.fixture
def switches_off():
    yield
    set_computation_network_trace_level(0)
    set_node_timing(False)


def _train():
    rng = np.random.RandomState(3)
    x = C.input_variable(6)
    y = C.input_variable(3)
    h = C.layers.Dense(8, init=C.initializer.glorot_uniform(seed=1))(x)
    h = C.layers.BatchNormalization(map_rank=1, normalization_time_constant=16, init_scale=1)(h)
    h = C.layers.Dropout(0.5, seed=7)(C.relu(h))
    z = C.layers.Dense(3, init=C.initializer.glorot_uniform(seed=2))(h)
    trainer = C.Trainer(z, (C.cross_entropy_with_softmax(z, y), C.classification_error(z, y)),
                        C.sgd(z.parameters, C.learning_parameter_schedule(0.1)))
    X = rng.randn(5, 6).astype(np.float32)
    Y = np.eye(3, dtype=np.float32)[[0, 1, 2, 1, 0]]
    losses = []
    for _ in range(4):
        trainer.train_minibatch({x: X, y: Y})
        losses.append(trainer.previous_minibatch_loss_average)
    return losses, z.eval({x: X[:2]}).ravel().tolist()


@pytest.mark.parametrize("level,timing", [(0, False), (1, False), (1000, False), (0, True)])
def test_traced_or_timed_training_is_cntk_27s(switches_off, capsys, level, timing):
    set_computation_network_trace_level(level)
    set_node_timing(timing)
    losses, evaluated = _train()
    assert losses == pytest.approx(LOSSES_CNTK27, abs=2e-7)
    assert evaluated == pytest.approx(EVAL_CNTK27, abs=2e-6)
    if level:
        assert "trace of" in capsys.readouterr().err
