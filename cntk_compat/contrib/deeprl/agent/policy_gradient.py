"""Actor-critic policy gradient."""
import ast

import numpy as np

import cntk_compat.layers as _layers
import cntk_compat.learners as _learners
import cntk_compat.losses as _losses
import cntk_compat.ops as _ops
from cntk_compat.train.trainer import Trainer

from .network_agent import NetworkAgent
from .shared.cntk_utils import negative_of_entropy_with_softmax
from .shared.models import Models
from .shared.policy_gradient_parameters import PolicyGradientParameters


class ActorCritic(NetworkAgent):
    """Advantage actor-critic (the single-worker form of A3C, Mnih et al. 2016).

    The policy network gives unnormalized log-probabilities of the actions (softmax is applied when acting);
    the value network estimates the discounted return V(s). The agent records the trajectory and every
    ``UpdateFrequency`` steps turns it into training data: for each visited state the discounted return R
    (bootstrapped from V of the last state while the episode runs on), the taken action one-hot, and the
    advantage R - V(s). One Adam step then minimizes
        advantage * cross_entropy(policy, action) + RegularizationWeight * (-entropy(policy))
        + RelativeStepSize * (V(s) - R)**2.
    ``PolicyRepresentation`` / ``ValueFunctionRepresentation`` are 'nn' (``Models.feedforward_network`` with
    the hidden layers of the config file) or a builder path 'module.function' (see ``shared.customized_models``).
    """

    def __init__(self, config_filename, o_space, a_space):
        super(ActorCritic, self).__init__(o_space, a_space)
        self._parameters = PolicyGradientParameters(config_filename)
        p = self._parameters
        if p.preprocessing:
            self._preprocessor = self._import_method(p.preprocessing)(
                self._shape_of_inputs, *ast.literal_eval(p.preprocessing_args))
        self._set_up_policy_network_and_value_network()
        self._trajectory_states = []
        self._trajectory_actions = []
        self._trajectory_rewards = []
        self._clear_training_data()
        self.episode_count = 0
        self.step_count = 0         # rewards received so far

    def _clear_training_data(self):
        """Empties the buffers of training samples (the networks share the input buffer)."""
        self._input_buffer = []
        self._value_network_output_buffer = []
        self._policy_network_output_buffer = []
        self._policy_network_weight_buffer = []

    def _build_model(self, role, representation, shape, number_of_outputs, hidden_layers, *loss_function):
        """The network of one representation, built on a placeholder input; ``loss_function`` is passed on only
        when given (the value network keeps its builder's default loss)."""
        if representation == 'nn':
            return Models.feedforward_network(shape, number_of_outputs, hidden_layers, *loss_function,
                                              use_placeholder_for_input=True)
        try:
            return self._import_method(representation)(shape, number_of_outputs, *loss_function,
                                                       use_placeholder_for_input=True)
        except ValueError:
            raise ValueError('Unknown representation for {0}: "{1}"'.format(role, representation))

    def _set_up_policy_network_and_value_network(self):
        p = self._parameters
        shape = self._shape_of_inputs if self._preprocessor is None else self._preprocessor.output_shape()
        self._input_variables = _ops.input_variable(shape=shape, dtype=np.float32)

        policy = self._build_model('policy', p.policy_representation, shape, self._num_actions,
                                   p.policy_network_hidden_layers, _losses.cross_entropy_with_softmax)
        self._policy_network = policy['f']
        self._policy_network.replace_placeholder(self._input_variables)
        self._policy_network_output_variables = policy['outputs']
        # the advantage of each sample scales its policy loss
        self._policy_network_weight_variables = _ops.input_variable(shape=(1,), dtype=np.float32)
        self._policy_network_loss = policy['loss'] * self._policy_network_weight_variables
        if p.initial_policy_network:
            self._policy_network.restore(p.initial_policy_network)
        print('Actor-critic agent: "{0}" policy network over {1} actions.'.format(p.policy_representation,
                                                                                 self._num_actions))

        if p.shared_representation:
            self._value_network = _layers.Dense(1, activation=None)(self._policy_network)
            self._value_network_output_variables = _ops.input_variable(shape=(1,), dtype=np.float32)
            self._value_network_loss = _losses.squared_error(self._value_network,
                                                             self._value_network_output_variables)
        else:
            value = self._build_model('value function', p.value_function_representation, shape, 1,
                                      p.value_network_hidden_layers)
            self._value_network = value['f']
            self._value_network.replace_placeholder(self._input_variables)
            self._value_network_output_variables = value['outputs']
            self._value_network_loss = value['loss']

        networks = _ops.combine([self._policy_network, self._value_network])
        loss = self._policy_network_loss + \
            p.regularization_weight * negative_of_entropy_with_softmax(self._policy_network) + \
            p.relative_step_size * self._value_network_loss
        learner = _learners.adam(
            networks.parameters,
            _learners.learning_parameter_schedule_per_sample(p.initial_eta),
            momentum=_learners.momentum_schedule(p.momentum),
            variance_momentum=_learners.momentum_schedule(0.999),
            minibatch_size=_learners.IGNORE)
        self._trainer = Trainer(networks, (loss, None), learner)
        print('Actor-critic agent: value function "{0}".'.format(
            p.policy_representation if p.shared_representation else p.value_function_representation))

    def start(self, state):
        self._process_accumulated_trajectory(False)     # what is left of an episode that was not ended
        if self._preprocessor is not None:
            self._preprocessor.reset()
        o = self._preprocess_state(state)
        action, _ = self._choose_action(o)
        self._trajectory_states.append(o)
        self._trajectory_actions.append(action)
        self.episode_count += 1
        return action, {}

    def step(self, reward, next_state):
        o = self._preprocess_state(next_state)
        self._trajectory_rewards.append(reward)
        self._trajectory_states.append(o)
        self.step_count += 1
        if self.step_count % self._parameters.update_frequency == 0:
            self._process_accumulated_trajectory(True)
            self._update_networks()
        action, _ = self._choose_action(o)
        self._trajectory_actions.append(action)
        return action, {}

    def end(self, reward, next_state):
        self._trajectory_rewards.append(reward)
        self.step_count += 1
        if self.step_count % self._parameters.update_frequency == 0:
            self._process_accumulated_trajectory(False)
            self._update_networks()

    def set_as_best_model(self):
        self._best_model = self._policy_network.clone('clone')

    def _choose_action(self, state):
        """An action drawn from the policy's softmax; (action, the probabilities)."""
        probabilities = _ops.softmax(self._evaluate_model(self._policy_network, state)).eval()
        return np.random.choice(self._num_actions, p=probabilities), probabilities

    def _evaluate_model(self, model, state):
        """The policy logits or the value of one state."""
        return np.squeeze(model.eval({model.arguments[0]: [state]}))

    def _process_accumulated_trajectory(self, keep_last):
        """Turns the recorded trajectory into training samples and clears it.

        While the episode runs on, the trajectory ends in a state without a reward yet (and, after ``start`` of
        a new episode without ``end``, an action without one too): the returns are bootstrapped from V of that
        state, which is dropped (with its action), or kept as the start of the next trajectory if
        ``keep_last``. A terminated trajectory bootstraps from 0.
        """
        if not self._trajectory_states:
            return
        states, actions, rewards = self._trajectory_states, self._trajectory_actions, self._trajectory_rewards
        carried = []
        if len(states) == len(rewards):
            bootstrap = 0
        else:
            bootstrap = self._evaluate_model(self._value_network, states[-1]).item()
            last_state = states.pop()
            carried = [last_state] if keep_last else []
            if len(actions) != len(rewards):
                actions.pop()
        if len(states) != len(rewards) or len(actions) != len(rewards):
            raise RuntimeError('Trajectory out of step: states and actions may run one step ahead of the '
                               'rewards, no more.')
        for state, action, ret in zip(states, actions, self._discount_rewards(bootstrap)):
            self._input_buffer.append(state)
            self._value_network_output_buffer.append([ret])
            self._policy_network_output_buffer.append(self._index_to_vector(action, self._num_actions))
            advantage = ret - float(self._evaluate_model(self._value_network, state))
            self._policy_network_weight_buffer.append([advantage])
        self._trajectory_states = carried
        self._trajectory_actions = []
        self._trajectory_rewards = []

    def _update_networks(self):
        """One training step on the buffered samples, which are then dropped."""
        self._adjust_learning_rate()
        self._trainer.train_minibatch({
            self._input_variables: np.array(self._input_buffer).astype(np.float32),
            self._policy_network_output_variables: np.array(self._policy_network_output_buffer).astype(np.float32),
            self._policy_network_weight_variables: np.array(self._policy_network_weight_buffer).astype(np.float32),
            self._value_network_output_variables: np.array(self._value_network_output_buffer).astype(np.float32),
        })
        self._clear_training_data()

    def _discount_rewards(self, bootstrap_r):
        """Discounted returns of the recorded rewards, continuing with ``bootstrap_r`` after the last one."""
        returns = []
        ret = bootstrap_r
        for reward in reversed(self._trajectory_rewards):
            ret = ret * self._parameters.gamma + reward
            returns.append(ret)
        return returns[::-1]
