"""An agent that acts uniformly at random: a baseline."""
import numpy as np

from .agent import AgentBaseClass


class RandomAgent(AgentBaseClass):
    """Picks every action uniformly at random and learns nothing."""

    def __init__(self, o_space, a_space):
        super(RandomAgent, self).__init__(o_space, a_space)
        print('Random agent over {0} actions.'.format(self._num_actions))
        self.episode_count = 0
        self.step_count = 0         # rewards received so far

    def start(self, state):
        self.episode_count += 1
        return self._choose_action(state)[0], {}

    def step(self, reward, next_state):
        self.step_count += 1
        return self._choose_action(next_state)[0], {}

    def end(self, reward, next_state):
        self.step_count += 1

    def set_as_best_model(self):
        """Nothing to keep."""

    def save(self, filename):
        """Nothing to save."""

    def save_parameter_settings(self, filename):
        """Nothing to save."""

    def _choose_action(self, state):
        return np.random.randint(self._num_actions), 'RANDOM'
