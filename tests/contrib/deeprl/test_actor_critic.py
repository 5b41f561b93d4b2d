"""Actor-critic on the 4-state chain (one-hot observations): CNTK 2.7's policy logits and values after the same
seeded episodes, with and without a shared representation; and the returns and advantages it trains on."""

import numpy as np
import pytest

from cntk.contrib.deeprl.agent.agent_factory import make_agent
from cntk.contrib.deeprl.agent.policy_gradient import ActorCritic

CONFIG = """[General]
Agent = actor_critic
Gamma = 0.9
[PolicyGradient]
UpdateFrequency = 5
%s
[Optimization]
InitialEta = 0.05
EtaMinimum = 0.01
EtaDecayStepCount = 40
[NetworkModel]
PolicyNetworkHiddenLayerNodes = [5]
ValueNetworkHiddenLayerNodes = [4]
"""

# CNTK 2.7: np.random.seed(3), random.seed(3), cntk_py.reset_random_seed(0), 5 episodes; per state: logits, V
CNTK_RUNS = {
    'separate': ('', 25,
                 [[-0.6986386179924011, 1.0588679313659668, 0.6074331998825073],
                  [-0.7511980533599854, 1.2203667163848877, 0.3492278754711151],
                  [-0.9734070301055908, 1.4112569093704224, 0.5764370560646057],
                  [-0.6729190945625305, 0.8188064098358154, 0.4328558146953583]]),
    'shared': ('SharedRepresentation = True', 35,
               [[-0.06393938511610031, 0.24656091630458832, 0.017938928678631783],
                [-0.10154232382774353, 0.18667833507061005, -0.006388116627931595],
                [-1.0264339447021484, 0.7901134490966797, -0.27003079652786255],
                [-0.47699081897735596, 0.48226749897003174, -0.1052485778927803]]),
}


@pytest.mark.parametrize("variant", sorted(CNTK_RUNS))
def test_networks_after_training_are_cntk27s(spaces, chain, config_file, cntk_run_seeds, variant):
    extra, steps, cntk_values = CNTK_RUNS[variant]
    agent = make_agent(config_file(CONFIG % extra), spaces.Discrete(4), spaces.Discrete(2))
    chain(agent, 5, lambda s: s)
    assert isinstance(agent, ActorCritic) and agent.step_count == steps
    values = []
    for s in range(4):
        o = agent._preprocess_state(s)
        values.append(list(agent._evaluate_model(agent._policy_network, o)) +
                      [float(agent._evaluate_model(agent._value_network, o))])
    np.testing.assert_allclose(values, cntk_values, rtol=1e-4, atol=2e-5)


def test_returns_and_advantages_of_a_running_trajectory(spaces, config_file):
    agent = ActorCritic(config_file(CONFIG % ''), spaces.Discrete(4), spaces.Discrete(2))
    states = [agent._preprocess_state(s) for s in range(4)]
    values = [float(agent._evaluate_model(agent._value_network, o)) for o in states]
    agent._trajectory_states = list(states)
    agent._trajectory_actions = [1, 1, 0]
    agent._trajectory_rewards = [0.0, 0.5, 1.0]
    agent._process_accumulated_trajectory(keep_last=True)
    returns = [0.9 * (0.5 + 0.9 * (1.0 + 0.9 * values[3])), 0.5 + 0.9 * (1.0 + 0.9 * values[3]),
               1.0 + 0.9 * values[3]]
    np.testing.assert_allclose(np.ravel(agent._value_network_output_buffer), returns, rtol=1e-6)
    np.testing.assert_allclose(np.ravel(agent._policy_network_weight_buffer),
                               np.array(returns) - values[:3], rtol=1e-5)
    np.testing.assert_array_equal(agent._policy_network_output_buffer, [[0, 1], [0, 1], [1, 0]])
    assert len(agent._trajectory_states) == 1 and agent._trajectory_states[0] is states[3]
    assert agent._trajectory_actions == [] and agent._trajectory_rewards == []


def test_shared_representation_adds_one_linear_unit(spaces, config_file):
    agent = ActorCritic(config_file(CONFIG % 'SharedRepresentation = True'), spaces.Discrete(4),
                        spaces.Discrete(2))
    extra = set(agent._value_network.parameters) - set(agent._policy_network.parameters)
    assert sorted(p.shape for p in extra) == [(1,), (2, 1)]


def test_unknown_representations_are_value_errors(spaces, config_file):
    for key, role in (('PolicyRepresentation', 'policy'), ('ValueFunctionRepresentation', 'value function')):
        text = CONFIG % ('%s = no.such.builder' % key)
        with pytest.raises(ValueError, match='Unknown representation for %s: "no.such.builder"' % role):
            ActorCritic(config_file(text), spaces.Discrete(4), spaces.Discrete(2))
