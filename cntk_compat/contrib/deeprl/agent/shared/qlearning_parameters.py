"""Settings of the Q-learning agents (tabular and neural)."""
import ast

import numpy as np

from .config_settings import GENERAL_SETTINGS, OPTIMIZATION_SETTINGS, ConfigSettings


class QLearningParameters(ConfigSettings):
    """Q-learning settings read from a config file, with CNTK 2.7's defaults for whatever the file omits.

    ``discretization_resolution`` (bins per coordinate when a Box observation space is discretized) is a Python
    literal: a number, or a list turned into a numpy array. ``gradient_clipping_threshold`` defaults to inf (no
    clipping).
    """

    _SETTINGS = GENERAL_SETTINGS + (
        ('q_representation', 'QLearningAlgo', 'QRepresentation', 'text', 'tabular'),
        ('initial_epsilon', 'QLearningAlgo', 'InitialEpsilon', 'float', 0.1),
        ('epsilon_decay_step_count', 'QLearningAlgo', 'EpsilonDecayStepCount', 'int', 100000),
        ('epsilon_minimum', 'QLearningAlgo', 'EpsilonMinimum', 'float', 0.01),
    ) + OPTIMIZATION_SETTINGS + (
        ('initial_q', 'QLearningAlgo', 'InitialQ', 'float', 0.0),
        ('discretization_resolution', 'QLearningAlgo', 'DiscretizationResolution', 'text', '10'),
        ('target_q_update_frequency', 'QLearningAlgo', 'TargetQUpdateFrequency', 'int', 10000),
        ('minibatch_size', 'QLearningAlgo', 'MinibatchSize', 'int', 32),
        ('replays_per_update', 'QLearningAlgo', 'ReplaysPerUpdate', 'int', 1),
        ('q_update_frequency', 'QLearningAlgo', 'QUpdateFrequency', 'int', 4),
        ('use_error_clipping', 'QLearningAlgo', 'ErrorClipping', 'bool', True),
        ('replay_memory_capacity', 'ExperienceReplay', 'Capacity', 'int', 100000),
        ('replay_start_size', 'ExperienceReplay', 'StartSize', 'int', 5000),
        ('use_prioritized_replay', 'ExperienceReplay', 'Prioritized', 'bool', False),
        ('priority_alpha', 'ExperienceReplay', 'PriorityAlpha', 'float', 0.7),
        ('priority_beta', 'ExperienceReplay', 'PriorityBeta', 'float', 0.5),
        ('priority_epsilon', 'ExperienceReplay', 'PriorityEpsilon', 'float', 0.01),
        ('hidden_layers', 'NetworkModel', 'HiddenLayerNodes', 'text', '[20]'),
        ('gradient_clipping_threshold', 'Optimization', 'GradientClippingThreshold', 'float', np.inf),
        ('double_q_learning', 'QLearningAlgo', 'DoubleQLearning', 'bool', False),
    )

    def __init__(self, config_file):
        super().__init__(config_file)
        resolution = ast.literal_eval(self.discretization_resolution)
        self.discretization_resolution = np.array(resolution) if isinstance(resolution, list) else resolution
