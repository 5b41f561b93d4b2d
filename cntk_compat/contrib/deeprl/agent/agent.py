"""The interface every agent implements, and the observation handling they share."""
from importlib import import_module

import numpy as np

from .shared.discretize import BoxSpaceDiscretizer
from .shared.gym_spaces import space_kind, class_path

_OBSERVATION_KINDS = ('discrete', 'box', 'multi_binary', 'multi_discrete')


class AgentBaseClass(object):
    """An agent acting in an environment with a Discrete action space.

    Per episode the environment calls ``start(observation)`` once, then ``step(reward, observation)`` for every
    transition, and ``end(reward, observation)`` when the episode terminates; start and step return
    (action, debug_info dict). ``evaluate`` picks an action without learning.

    Observations come in three forms:
      * Discrete(n): a state index, fed to networks as a one-hot vector of n floats;
      * a Box discretized by the agent (see ``_discretize_observation_space``): treated as Discrete;
      * anything else (Box, MultiBinary, MultiDiscrete): the raw array.
    The base sets ``_num_actions``, ``_num_states`` (None unless discrete), ``_shape_of_inputs`` (the input shape
    of a network: (n,) for Discrete and MultiBinary, the space's shape otherwise), ``_discrete_observation_space``,
    ``_space_discretizer``, ``_preprocessor`` and ``_best_model``.
    """

    def __init__(self, o_space, a_space):
        if space_kind(a_space) != 'discrete':
            raise ValueError('Action space {0} is not supported by {1}: only Discrete action spaces are.'.format(
                a_space, self))
        self._num_actions = a_space.n
        kind = space_kind(o_space)
        if kind not in _OBSERVATION_KINDS:
            raise ValueError('Observation space {0} is not supported: use Discrete, Box, MultiBinary or '
                             'MultiDiscrete.'.format(o_space))
        self._discrete_observation_space = kind == 'discrete'
        self._num_states = o_space.n if self._discrete_observation_space else None
        self._shape_of_inputs = (o_space.n,) if kind in ('discrete', 'multi_binary') else o_space.shape
        self._space_discretizer = None
        self._preprocessor = None
        self._best_model = None

    def start(self, state):
        """Begins an episode at observation ``state``; returns (action, debug_info)."""
        raise NotImplementedError

    def step(self, reward, next_state):
        """Takes the reward of the last action and the observation it led to; returns (action, debug_info)."""
        raise NotImplementedError

    def end(self, reward, next_state):
        """Takes the reward of the last action and the final observation of the episode."""
        raise NotImplementedError

    def save(self, filename):
        """Writes the best model (see ``set_as_best_model``) to ``filename``."""
        raise NotImplementedError

    def save_parameter_settings(self, filename):
        """Writes the agent's config settings to ``filename``."""
        raise NotImplementedError

    def set_as_best_model(self):
        """Keeps a copy of the current model as the best one."""
        raise NotImplementedError

    def enter_evaluation(self):
        """Called before evaluation episodes (agents turn exploration off here)."""

    def exit_evaluation(self):
        """Called after evaluation episodes."""

    def evaluate(self, o):
        """The action the agent picks for observation ``o``, learning nothing."""
        action, _ = self._choose_action(self._preprocess_state(o))
        return action

    def _choose_action(self, state):
        """(action, debug_info) for an already preprocessed ``state``."""
        raise NotImplementedError

    def _discretize_observation_space(self, space, discretization_resolution):
        """Makes a Box observation space discrete: observations become grid-cell indices (one-hot encoded for
        networks)."""
        if space_kind(space) != 'box':
            raise ValueError('Only Box observation spaces can be discretized, not {0}'.format(space))
        self._space_discretizer = BoxSpaceDiscretizer(space, discretization_resolution)
        self._discrete_observation_space = True
        self._num_states = self._space_discretizer.num_states
        self._shape_of_inputs = (self._num_states,)

    def _discretize_state_if_necessary(self, state):
        if self._space_discretizer is None:
            return state
        return self._space_discretizer.discretize(state)

    def _index_to_vector(self, index, dimension):
        """One-hot float64 vector of length ``dimension``."""
        vector = np.zeros(dimension)
        vector[index] = 1
        return vector

    def _preprocess_state(self, state):
        """The network input for an observation: discretized and one-hot encoded where the space is discrete,
        passed through the preprocessor if any, as float32."""
        o = self._discretize_state_if_necessary(state)
        if self._discrete_observation_space:
            o = self._index_to_vector(o, self._num_states)
        if self._preprocessor is not None:
            o = self._preprocessor.preprocess(o)
        return o if o.dtype == np.float32 else o.astype(np.float32)

    def _classname(self, instance):
        return class_path(instance)

    def _import_method(self, path):
        """The object that 'package.module.name' names; ValueError if it cannot be imported."""
        module_name, _, name = path.rpartition('.')
        try:
            return getattr(import_module(module_name), name)
        except (AttributeError, ImportError, ValueError):
            raise ValueError('Cannot import "{0}" (expected module.name)'.format(path))
