"""What the agents whose model is a CNTK network trained by one Trainer (DQN, actor-critic) share."""
import cntk_compat.learners as _learners

from .agent import AgentBaseClass
from .schedules import linearly_decayed


class NetworkAgent(AgentBaseClass):
    """Saves the best network and the settings; decays the learning rate from ``initial_eta`` to ``eta_minimum``
    over ``eta_decay_step_count`` steps (the subclass sets ``_trainer`` and ``_parameters``)."""

    def save(self, filename):
        self._best_model.save(filename)

    def save_parameter_settings(self, filename):
        self._parameters.save(filename)

    def _adjust_learning_rate(self):
        p = self._parameters
        if p.initial_eta != p.eta_minimum:
            eta = linearly_decayed(p.initial_eta, p.eta_minimum, p.eta_decay_step_count, self.step_count)
            self._trainer.parameter_learners[0].reset_learning_rate(
                _learners.learning_parameter_schedule_per_sample(eta))
