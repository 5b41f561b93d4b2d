"""make_agent's choice of agent, the spaces the agents accept and how observations reach a network."""
import numpy as np
import pytest

from cntk.contrib.deeprl.agent.agent import AgentBaseClass
from cntk.contrib.deeprl.agent.agent_factory import make_agent
from cntk.contrib.deeprl.agent.policy_gradient import ActorCritic
from cntk.contrib.deeprl.agent.qlearning import QLearning
from cntk.contrib.deeprl.agent.random_agent import RandomAgent
from cntk.contrib.deeprl.agent.tabular_qlearning import TabularQLearning


@pytest.mark.parametrize("name, cls", [('QLearning', QLearning), ('actor_critic', ActorCritic),
                                       ('Tabular_QLearning', TabularQLearning), ('random', RandomAgent)])
def test_make_agent_reads_the_agent_name(spaces, config_file, name, cls):
    text = '[General]\nAgent = %s\n[QLearningAlgo]\nQRepresentation = %s\n' % (
        name, 'tabular' if cls is TabularQLearning else 'dqn')
    assert type(make_agent(config_file(text), spaces.Discrete(3), spaces.Discrete(2))) is cls


def test_make_agent_defaults_to_random_and_gives_none_for_unknown_names(spaces, config_file):
    assert isinstance(make_agent(config_file('[General]\n'), spaces.Discrete(3), spaces.Discrete(2)), RandomAgent)
    assert make_agent(config_file('[General]\nAgent = sarsa\n'), spaces.Discrete(3), spaces.Discrete(2)) is None


def test_random_agent_counts_and_acts_in_range(spaces):
    np.random.seed(1)
    agent = RandomAgent(spaces.Box(0, 1, (2,)), spaces.Discrete(3))
    actions = [agent.start(np.zeros(2))[0]] + [agent.step(0.0, np.zeros(2))[0] for _ in range(30)]
    agent.end(1.0, np.zeros(2))
    assert set(actions) == {0, 1, 2} and agent.step_count == 31 and agent.episode_count == 1


class _Probe(AgentBaseClass):
    def _choose_action(self, state):
        return int(np.argmax(state)), 'GREEDY'


def test_spaces_and_observation_encoding(spaces):
    with pytest.raises(ValueError):
        _Probe(spaces.Discrete(3), spaces.Box(0, 1, (1,)))        # actions must be Discrete
    discrete = _Probe(spaces.Discrete(3), spaces.Discrete(2))
    encoded = discrete._preprocess_state(2)
    assert encoded.dtype == np.float32 and encoded.tolist() == [0, 0, 1] and discrete.evaluate(1) == 1
    box = _Probe(spaces.Box(0, 1, (2,)), spaces.Discrete(2))
    assert box._num_states is None and box._shape_of_inputs == (2,)
    assert box._preprocess_state(np.array([0.25, 0.5])).dtype == np.float32
    box._discretize_observation_space(spaces.Box(0, 1, (2,)), 2)
    assert box._num_states == 4 and box._preprocess_state(np.array([0.75, 0.25])).tolist() == [0, 0, 1, 0]
    binary = _Probe(spaces.MultiBinary(5), spaces.Discrete(2))
    assert binary._shape_of_inputs == (5,) and not binary._discrete_observation_space
    with pytest.raises(ValueError):
        binary._discretize_observation_space(spaces.MultiBinary(5), 2)
    with pytest.raises(ValueError, match='Cannot import'):
        binary._import_method('no_such_module.thing')
