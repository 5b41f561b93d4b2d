"""Tabular Q-learning learns a 4-state chain (reward 1 at the right end): CNTK 2.7's table after the same
seeded episodes, which holds the optimal values gamma**k of moving right."""
import numpy as np
import pytest

from cntk.contrib.deeprl.agent.agent_factory import make_agent
from cntk.contrib.deeprl.agent.tabular_qlearning import TabularQLearning

CONFIG = """[General]
Agent = tabular_qlearning
Gamma = 0.9
[QLearningAlgo]
InitialEpsilon = 0.2
EpsilonDecayStepCount = 200
EpsilonMinimum = 0.05
DiscretizationResolution = 4
InitialQ = 1.0
[Optimization]
InitialEta = 0.5
EtaMinimum = 0.1
EtaDecayStepCount = 200
"""

# CNTK 2.7, np.random.seed(0), 30 episodes of at most 8 steps
CNTK_TABLE = [[0.7661256691781163, 0.8100001367400561], [0.7836501997699479, 0.9000000044930544],
              [0.827816953435171, 1.0], [1.0, 1.0]]


@pytest.mark.parametrize("box", [False, True])
def test_learns_the_chain_as_cntk27(spaces, chain, config_file, box):
    np.random.seed(0)
    if box:      # the states as points of [0, 1], discretized into 4 bins: the same table
        agent = make_agent(config_file(CONFIG), spaces.Box(0, 1, (1,)), spaces.Discrete(2))
        chain(agent, 30, lambda s: np.array([s / 3.0]))
    else:
        agent = make_agent(config_file(CONFIG), spaces.Discrete(4), spaces.Discrete(2))
        chain(agent, 30, lambda s: s)
    assert isinstance(agent, TabularQLearning) and agent.step_count == 114 and agent.episode_count == 30
    np.testing.assert_allclose(agent._q, CNTK_TABLE, rtol=1e-12)
    np.testing.assert_allclose(agent._q[:3, 1], [0.81, 0.9, 1.0], atol=1e-6)
    agent.enter_evaluation()
    assert [agent.evaluate(s if not box else np.array([s / 3.0])) for s in range(3)] == [1, 1, 1]


def test_one_step_update_and_decays(spaces, config_file):
    agent = TabularQLearning(config_file(CONFIG), spaces.Discrete(3), spaces.Discrete(2))
    agent._choose_action = lambda state: (1, 'GREEDY')
    action, info = agent.start(0)
    assert (action, info) == (1, {'action_behavior': 'GREEDY', 'epsilon': 0.2})
    agent.step(0.5, 1)        # Q[0, 1] += 0.5 * (0.5 + 0.9 * 1 - 1)
    assert agent._q[0, 1] == pytest.approx(1.2) and agent._eta == 0.5
    assert agent._epsilon == pytest.approx(0.05 + 0.15 * (1 - 1 / 200))
    agent.end(2.0, 2)         # terminal: Q[1, 1] += eta * (2 - 1), eta decayed by one step
    eta = 0.1 + 0.4 * (1 - 1 / 200)
    assert agent._eta == pytest.approx(eta) and agent._q[1, 1] == pytest.approx(1 + eta)
    assert agent.step_count == 2


def test_save_writes_one_line_per_state(spaces, config_file, tmp_path):
    agent = TabularQLearning(config_file(CONFIG), spaces.Discrete(2), spaces.Discrete(3))
    agent._q[1] = [0.5, 2.0, -1.0]
    agent.set_as_best_model()
    agent._q[1] = 0
    agent.save(str(tmp_path / 'table.txt'))
    assert (tmp_path / 'table.txt').read_text() == '0\t[1. 1. 1.]\n1\t[ 0.5  2.  -1. ]\n'
    agent.save_parameter_settings(str(tmp_path / 'settings.ini'))
    assert 'InitialQ = 1.0' in (tmp_path / 'settings.ini').read_text()


def test_needs_a_tabular_representation_and_a_discretizable_space(spaces, config_file):
    with pytest.raises(ValueError, match='tabular'):
        TabularQLearning(config_file('[QLearningAlgo]\nQRepresentation = dqn\n'), spaces.Discrete(3),
                         spaces.Discrete(2))
    with pytest.raises(ValueError):
        TabularQLearning(config_file(CONFIG), spaces.MultiBinary(4), spaces.Discrete(2))
