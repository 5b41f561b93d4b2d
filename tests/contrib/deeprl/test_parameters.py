"""The config readers: CNTK 2.7's defaults, case-sensitive keys, literal values and configparser's errors."""
import numpy as np
import pytest

from cntk.contrib.deeprl.agent.shared.policy_gradient_parameters import PolicyGradientParameters
from cntk.contrib.deeprl.agent.shared.qlearning_parameters import QLearningParameters

QLEARNING_DEFAULTS = {
    'discretization_resolution': 10, 'double_q_learning': False, 'epsilon_decay_step_count': 100000,
    'epsilon_minimum': 0.01, 'eta_decay_step_count': 100000, 'eta_minimum': 0.001, 'gamma': 0.95,
    'gradient_clipping_threshold': np.inf, 'hidden_layers': '[20]', 'initial_epsilon': 0.1, 'initial_eta': 0.001,
    'initial_q': 0.0, 'minibatch_size': 32, 'momentum': 0.95, 'preprocessing': '', 'preprocessing_args': '()',
    'priority_alpha': 0.7, 'priority_beta': 0.5, 'priority_epsilon': 0.01, 'q_representation': 'tabular',
    'q_update_frequency': 4, 'replay_memory_capacity': 100000, 'replay_start_size': 5000, 'replays_per_update': 1,
    'target_q_update_frequency': 10000, 'use_error_clipping': True, 'use_prioritized_replay': False}

POLICY_GRADIENT_DEFAULTS = {
    'eta_decay_step_count': 100000, 'eta_minimum': 0.001, 'gamma': 0.95, 'initial_eta': 0.001,
    'initial_policy_network': '', 'momentum': 0.95, 'policy_network_hidden_layers': '[10]',
    'policy_representation': 'nn', 'preprocessing': '', 'preprocessing_args': '()', 'regularization_weight': 0.001,
    'relative_step_size': 0.5, 'shared_representation': False, 'update_frequency': 64,
    'value_function_representation': 'nn', 'value_network_hidden_layers': '[10]'}


@pytest.mark.parametrize("cls, defaults", [(QLearningParameters, QLEARNING_DEFAULTS),
                                           (PolicyGradientParameters, POLICY_GRADIENT_DEFAULTS)])
def test_defaults_without_a_file(cls, defaults):
    settings = {k: v for k, v in vars(cls('')).items() if k != 'config'}
    assert settings == defaults


def test_values_read_from_a_file(config_file):
    q = QLearningParameters(config_file('[QLearningAlgo]\nDiscretizationResolution = [3, 4]\ngamma = 0.5\n'
                                        'InitialQ = 2\n[General]\nGamma = 0.8\n'))
    assert isinstance(q.discretization_resolution, np.ndarray) and q.discretization_resolution.tolist() == [3, 4]
    assert q.gamma == 0.8 and q.initial_q == 2.0       # 'gamma' (lower case) is not the key Gamma


@pytest.mark.parametrize("text, message", [
    ('[Optimization]\nInitialEta = fast\n', "could not convert string to float: 'fast'"),
    ('[ExperienceReplay]\nPrioritized = maybe\n', 'Not a boolean: maybe'),
    ('[QLearningAlgo]\nMinibatchSize = 3.5\n', "invalid literal for int() with base 10: '3.5'"),
])
def test_bad_values_raise_configparsers_errors(config_file, text, message):
    with pytest.raises(ValueError) as error:
        QLearningParameters(config_file(text))
    assert str(error.value) == message


def test_save_writes_what_the_file_held(config_file, tmp_path):
    p = PolicyGradientParameters(config_file('[PolicyGradient]\nUpdateFrequency = 8\n'))
    p.save(str(tmp_path / 'out.ini'))
    assert (tmp_path / 'out.ini').read_text() == '[PolicyGradient]\nUpdateFrequency = 8\n\n'
