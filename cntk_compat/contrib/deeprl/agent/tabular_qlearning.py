"""Q-learning with a table of state-action values."""
import copy

import numpy as np

from .agent import AgentBaseClass
from .schedules import linearly_decayed
from .shared.qlearning_parameters import QLearningParameters


class TabularQLearning(AgentBaseClass):
    """One-step Q-learning over a (states x actions) table, acting epsilon-greedily.

    Needs a Discrete observation space or a Box one (discretized with ``DiscretizationResolution`` bins per
    coordinate); ``QRepresentation`` must be 'tabular'. Every step moves Q[s, a] by eta times the TD error
    r + gamma * max Q[s'] - Q[s, a] (r - Q[s, a] at the end of an episode). Epsilon and eta decay linearly
    with the number of steps (``_adjust_exploration_rate`` / ``_adjust_learning_rate``).
    """

    def __init__(self, cfg_filename, o_space, a_space):
        super(TabularQLearning, self).__init__(o_space, a_space)
        self._parameters = QLearningParameters(cfg_filename)
        if self._parameters.q_representation != 'tabular':
            raise ValueError('TabularQLearning needs QRepresentation "tabular", got "{0}"'.format(
                self._parameters.q_representation))
        if not self._discrete_observation_space:
            self._discretize_observation_space(o_space, self._parameters.discretization_resolution)
        self._q = np.zeros((self._num_states, self._num_actions)) + self._parameters.initial_q
        print('Tabular Q-learning agent: {0} states, {1} actions.'.format(self._num_states, self._num_actions))
        self.episode_count = 0
        self.step_count = 0         # rewards received so far

    def start(self, state):
        self._adjust_exploration_rate()
        self._last_state = self._preprocess_state(state)
        return self._act(self._last_state, new_episode=True)

    def step(self, reward, next_state):
        self._adjust_learning_rate()
        self.step_count += 1
        next_state = self._preprocess_state(next_state)
        self._learn(reward + self._parameters.gamma * np.max(self._q[next_state]))
        self._adjust_exploration_rate()
        self._last_state = next_state
        return self._act(next_state)

    def end(self, reward, next_state):
        self._adjust_learning_rate()
        self.step_count += 1
        self._learn(reward)

    def set_as_best_model(self):
        self._best_model = copy.deepcopy(self._q)

    def save(self, filename):
        """Writes the best table, one line per state: index, a tab, then the row of action values."""
        with open(filename, 'w') as out:
            for state, row in enumerate(self._best_model):
                out.write('{0}\t{1}\n'.format(state, row))

    def save_parameter_settings(self, filename):
        self._parameters.save(filename)

    def enter_evaluation(self):
        self._epsilon = 0

    def _act(self, state, new_episode=False):
        self._last_action, behavior = self._choose_action(state)
        if new_episode:
            self.episode_count += 1
        return self._last_action, {'action_behavior': behavior, 'epsilon': self._epsilon}

    def _learn(self, target):
        """Moves Q of the last state-action pair by eta towards ``target``."""
        cell = (self._last_state, self._last_action)
        self._q[cell] += self._eta * (target - self._q[cell])

    def _adjust_learning_rate(self):
        p = self._parameters
        self._eta = linearly_decayed(p.initial_eta, p.eta_minimum, p.eta_decay_step_count, self.step_count)

    def _adjust_exploration_rate(self):
        p = self._parameters
        self._epsilon = linearly_decayed(p.initial_epsilon, p.epsilon_minimum, p.epsilon_decay_step_count,
                                         self.step_count)

    def _choose_action(self, state):
        """Epsilon-greedy over the table row of ``state``."""
        if np.random.uniform(0, 1) < self._epsilon:
            return np.random.randint(self._num_actions), 'RANDOM'
        return np.argmax(self._q[state]), 'GREEDY'

    def _preprocess_state(self, state):
        """The table row of an observation (its cell index for a discretized Box)."""
        return self._discretize_state_if_necessary(state)
