"""Q-learning with a neural Q function: DQN and its variants."""
import ast
import math

import numpy as np

import cntk_compat.learners as _learners
import cntk_compat.ops as _ops
from cntk_compat.train.trainer import Trainer

from .network_agent import NetworkAgent
from .schedules import linearly_decayed
from .shared.cntk_utils import huber_loss
from .shared.models import Models
from .shared.qlearning_parameters import QLearningParameters
from .shared.replay_memory import ReplayMemory


class QLearning(NetworkAgent):
    """Deep Q-learning (DQN, Mnih et al. 2015) with the options of the config file: double Q-learning
    (van Hasselt et al. 2016), a dueling network (Wang et al. 2016), prioritized replay (Schaul et al. 2016) and
    Huber loss (``ErrorClipping``).

    ``QRepresentation`` picks the network: 'dqn' (``Models.feedforward_network``), 'dueling-dqn'
    (``Models.dueling_network``) or the path 'module.function' of a builder called as
    ``function(shape_of_inputs, number_of_actions, loss_function)`` (see ``shared.customized_models``).

    Every transition goes to the replay memory. After ``StartSize`` steps of purely random actions, every
    ``QUpdateFrequency`` steps the agent trains ``ReplaysPerUpdate`` minibatches with Adam; a minibatch's target
    for the taken action is r + gamma * max_a Q_target(s', a) (r at the end of an episode; double Q-learning
    evaluates Q's greedy action with Q_target), its other outputs keep Q's own values. Q_target is a copy of Q
    refreshed every ``TargetQUpdateFrequency`` steps.
    """

    def __init__(self, config_filename, o_space, a_space):
        super(QLearning, self).__init__(o_space, a_space)
        self._parameters = QLearningParameters(config_filename)
        p = self._parameters
        if p.preprocessing:
            self._preprocessor = self._make_preprocessor()
        model = self._build_q_model()
        self._q = model['f']
        self._input_variables = model['inputs']
        self._output_variables = model['outputs']
        self._loss = model['loss']
        if p.use_prioritized_replay:
            # importance-sampling weight of each sample in the minibatch
            self._weight_variables = _ops.input_variable(shape=(1,), dtype=np.float32)
            self._loss = self._loss * self._weight_variables
        learner = _learners.adam(
            self._q.parameters,
            _learners.learning_parameter_schedule_per_sample(p.initial_eta),
            use_mean_gradient=True,
            momentum=_learners.momentum_schedule(p.momentum),
            variance_momentum=_learners.momentum_schedule(0.999),
            gradient_clipping_threshold_per_sample=p.gradient_clipping_threshold,
            gradient_clipping_with_truncation=False)
        self._trainer = Trainer(self._q, (self._loss, None), learner)
        self._target_q = self._q.clone('clone')
        self._replay_memory = ReplayMemory(p.replay_memory_capacity, p.use_prioritized_replay)
        print('Q-learning agent with a "{0}" network over {1} actions.'.format(p.q_representation,
                                                                              self._num_actions))
        self.episode_count = 0
        self.step_count = 0         # rewards received so far

    def _make_preprocessor(self):
        p = self._parameters
        try:
            preprocessor_class = self._import_method(p.preprocessing)
            return preprocessor_class(self._shape_of_inputs, *ast.literal_eval(p.preprocessing_args))
        except ValueError:
            raise ValueError('Unknown preprocessing method: "{0}"'.format(p.preprocessing))

    def _build_q_model(self):
        p = self._parameters
        shape = self._shape_of_inputs if self._preprocessor is None else self._preprocessor.output_shape()
        loss_function = huber_loss if p.use_error_clipping else None
        predefined = {'dqn': Models.feedforward_network, 'dueling-dqn': Models.dueling_network}
        if p.q_representation in predefined:
            return predefined[p.q_representation](shape, self._num_actions, p.hidden_layers, loss_function)
        try:
            return self._import_method(p.q_representation)(shape, self._num_actions, loss_function)
        except ValueError:
            raise ValueError('Unknown representation for Q-learning: "{0}"'.format(p.q_representation))

    def start(self, state):
        if self._preprocessor is not None:
            self._preprocessor.reset()
        self._adjust_exploration_rate()
        self._last_state = self._preprocess_state(state)
        self._last_action, behavior = self._choose_action(self._last_state)
        self.episode_count += 1
        return self._last_action, {'action_behavior': behavior, 'epsilon': self._epsilon}

    def step(self, reward, next_state):
        next_state = self._preprocess_state(next_state)
        self._remember(reward, next_state)
        self._adjust_exploration_rate()
        self._last_state = next_state
        self._last_action, behavior = self._choose_action(next_state)
        return self._last_action, {'action_behavior': behavior, 'epsilon': self._epsilon}

    def end(self, reward, next_state):
        self._remember(reward, None)

    def _remember(self, reward, next_state):
        """Stores the last transition (next_state None: the episode ended), counts the step and trains when due."""
        s, a = self._last_state, self._last_action
        self._replay_memory.store(s, a, reward, next_state, self._compute_priority(s, a, reward, next_state))
        self.step_count += 1
        self._update_q_periodically()

    def set_as_best_model(self):
        self._best_model = self._q.clone('clone')

    def enter_evaluation(self):
        self._epsilon = 0

    def _adjust_exploration_rate(self):
        p = self._parameters
        self._epsilon = linearly_decayed(p.initial_epsilon, p.epsilon_minimum, p.epsilon_decay_step_count,
                                         self.step_count)

    def _choose_action(self, state):
        """Random while the replay memory is filling up (``StartSize`` steps), epsilon-greedy after."""
        if self.step_count < self._parameters.replay_start_size or np.random.uniform(0, 1) < self._epsilon:
            return np.random.randint(self._num_actions), 'RANDOM'
        return np.argmax(self._evaluate_q(self._q, state)), 'GREEDY'

    def _evaluate_q(self, model, state, action=None):
        """Q values of ``state`` under ``model``: all actions, or that of ``action``."""
        q = np.squeeze(model.eval({model.arguments[0]: [state]}))
        return q if action is None else q[action]

    def _update_q_periodically(self):
        p = self._parameters
        if self.step_count < p.replay_start_size or self.step_count % p.q_update_frequency != 0:
            return
        self._adjust_learning_rate()
        for _ in range(p.replays_per_update):
            self._replay_and_update()
        if self.step_count % p.target_q_update_frequency == 0:
            self._target_q = self._q.clone('clone')

    def _replay_and_update(self):
        """Trains Q on one minibatch from the replay memory (and re-prioritizes its transitions)."""
        prioritized = self._parameters.use_prioritized_replay
        minibatch = self._replay_memory.sample_minibatch(self._parameters.minibatch_size)
        states, targets = [], []
        for _, t in minibatch:
            target = self._evaluate_q(self._q, t.state)
            # Q(s, a) + TD error, summed in float64 as numpy 1 sums a float32 scalar and a Python float
            target[t.action] = float(target[t.action]) + self._compute_td_err(t.state, t.action, t.reward,
                                                                              t.next_state)
            states.append(t.state)
            targets.append(target)
        batch = {self._input_variables: np.array(states).astype(np.float32),
                 self._output_variables: np.array(targets).astype(np.float32)}
        if prioritized:
            weights = [math.pow(t.priority, -self._parameters.priority_beta) for _, t in minibatch]
            total = sum(weights)
            batch[self._weight_variables] = np.array([[w / total] for w in weights]).astype(np.float32)
        self._trainer.train_minibatch(batch)
        if prioritized:
            self._replay_memory.update_priority({
                position: self._compute_priority(t.state, t.action, t.reward, t.next_state)
                for position, t in minibatch})

    def _compute_td_err(self, state, action, reward, next_state):
        """r + gamma * Q_target(next_state, best action) - Q(state, action); r - Q(state, action) at the end.
        Computed in float64 (the network's float32 values widened) under any numpy version."""
        td_err = reward
        if next_state is not None:
            if self._parameters.double_q_learning:
                best = np.argmax(self._evaluate_q(self._q, next_state))
                td_err += self._parameters.gamma * float(self._evaluate_q(self._target_q, next_state, best))
            else:
                td_err += self._parameters.gamma * float(np.max(self._evaluate_q(self._target_q, next_state)))
        return td_err - float(self._evaluate_q(self._q, state, action))

    def _compute_priority(self, state, action, reward, next_state):
        """(|TD error| + PriorityEpsilon) ** PriorityAlpha with prioritized replay, else None."""
        p = self._parameters
        if not p.use_prioritized_replay:
            return None
        return math.pow(math.fabs(self._compute_td_err(state, action, reward, next_state)) + p.priority_epsilon,
                        p.priority_alpha)
