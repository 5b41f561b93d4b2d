"""Deep Q-learning on the 4-state chain (observations [s/3, 1 - s/3]): the Q values CNTK 2.7 ends with after
the same seeded episodes, for DQN and its double, prioritized and dueling variants; and one update step by
hand."""

import numpy as np
import pytest

from cntk.contrib.deeprl.agent.agent_factory import make_agent
from cntk.contrib.deeprl.agent.qlearning import QLearning


def dqn_config(representation='dqn', hidden='[4]', q_extra='', replay_extra=''):
    return """[General]
Agent = qlearning
Gamma = 0.9
[QLearningAlgo]
QRepresentation = %s
InitialEpsilon = 0.5
EpsilonDecayStepCount = 30
EpsilonMinimum = 0.05
TargetQUpdateFrequency = 6
MinibatchSize = 4
QUpdateFrequency = 2
%s
[ExperienceReplay]
Capacity = 16
StartSize = 4
%s
[Optimization]
InitialEta = 0.05
EtaMinimum = 0.01
EtaDecayStepCount = 40
[NetworkModel]
HiddenLayerNodes = %s
""" % (representation, q_extra, replay_extra, hidden)


def observe(s):
    return np.array([s / 3.0, 1 - s / 3.0], np.float32)


# CNTK 2.7: np.random.seed(3), random.seed(3), cntk_py.reset_random_seed(0), 5 episodes of at most 8 steps
CNTK_RUNS = {
    'dqn': (dqn_config(), 45,
            [[0.19204595685005188, 0.21776002645492554], [0.20622244477272034, 0.07919684797525406],
             [0.20524093508720398, -0.07676968723535538], [0.2014831155538559, -0.6739046573638916]]),
    'double': (dqn_config(q_extra='DoubleQLearning = True'), 45,
               [[0.182777538895607, 0.21513330936431885], [0.19716127216815948, 0.07795413583517075],
                [0.19619359076023102, -0.07799103111028671], [0.19248820841312408, -0.6751260757446289]]),
    'prioritized': (dqn_config(replay_extra='Prioritized = True'), 45,
                    [[0.13678625226020813, 0.2634217143058777], [0.15596343576908112, 0.11931943148374557],
                     [0.1161203384399414, -0.2937440872192383], [0.048519983887672424, -0.9895482063293457]]),
    'dueling': (dqn_config('dueling-dqn', '[4, [3], [3]]'), 22,
                [[0.15970593690872192, 0.488727867603302], [0.1520930528640747, 0.4811149835586548],
                 [0.3183742165565491, 0.6473961472511292], [0.6429236531257629, 0.971945583820343]]),
}


@pytest.mark.parametrize("variant", sorted(CNTK_RUNS))
def test_q_values_after_training_are_cntk27s(spaces, chain, config_file, cntk_run_seeds, variant):
    text, steps, cntk_q = CNTK_RUNS[variant]
    agent = make_agent(config_file(text), spaces.Box(0, 1, (2,)), spaces.Discrete(2))
    chain(agent, 5, observe)
    assert isinstance(agent, QLearning) and agent.step_count == steps
    q = [agent._evaluate_q(agent._q, observe(s)) for s in range(4)]
    np.testing.assert_allclose(q, cntk_q, rtol=1e-4, atol=1e-5)


def test_an_update_moves_q_towards_the_target(spaces, config_file):
    text = dqn_config().replace('StartSize = 4', 'StartSize = 0').replace('QUpdateFrequency = 2',
                                                                          'QUpdateFrequency = 1')
    agent = QLearning(config_file(text), spaces.Box(0, 1, (2,)), spaces.Discrete(2))
    agent._choose_action = lambda state: (1, 'GREEDY')
    s0, s1 = observe(0), observe(1)
    agent.start(s0)
    q_before = agent._evaluate_q(agent._q, s0)
    target = 2.0 + 0.9 * np.max(agent._evaluate_q(agent._target_q, s1))
    agent.step(2.0, s1)          # one stored transition, one minibatch of it
    q_after = agent._evaluate_q(agent._q, s0)
    assert abs(q_after[1] - target) < abs(q_before[1] - target)
    assert agent._compute_td_err(s0, 1, 2.0, s1) == pytest.approx(target - q_after[1], rel=1e-5)
    assert agent._compute_td_err(s0, 1, 2.0, None) == pytest.approx(2.0 - q_after[1], rel=1e-5)


def test_prioritized_replay_weights_and_priorities(spaces, config_file):
    agent = QLearning(config_file(dqn_config(replay_extra='Prioritized = True\nPriorityAlpha = 0.5\n'
                                                          'PriorityBeta = 1\nPriorityEpsilon = 0.25')),
                      spaces.Box(0, 1, (2,)), spaces.Discrete(2))
    td = agent._compute_td_err(observe(0), 0, 1.0, observe(1))
    assert agent._compute_priority(observe(0), 0, 1.0, observe(1)) == pytest.approx((abs(td) + 0.25) ** 0.5)
    assert QLearning(config_file(dqn_config()), spaces.Box(0, 1, (2,)), spaces.Discrete(2)) \
        ._compute_priority(observe(0), 0, 1.0, observe(1)) is None


def test_unknown_representation_and_preprocessing_are_value_errors(spaces, config_file):
    with pytest.raises(ValueError, match='Unknown representation for Q-learning: "no.such.model"'):
        QLearning(config_file(dqn_config('no.such.model')), spaces.Box(0, 1, (2,)), spaces.Discrete(2))
    with pytest.raises(ValueError, match='Unknown preprocessing method'):
        QLearning(config_file(dqn_config().replace('Gamma = 0.9', 'Gamma = 0.9\nPreProcessing = nowhere.Thing')),
                  spaces.Box(0, 1, (2,)), spaces.Discrete(2))
