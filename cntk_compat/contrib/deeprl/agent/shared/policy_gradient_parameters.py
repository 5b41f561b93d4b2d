"""Settings of the actor-critic (policy gradient) agent."""
from .config_settings import GENERAL_SETTINGS, OPTIMIZATION_SETTINGS, ConfigSettings


class PolicyGradientParameters(ConfigSettings):
    """Actor-critic settings read from a config file, with CNTK 2.7's defaults for whatever the file omits.

    With ``shared_representation`` the value function is one linear unit on top of the policy network's
    unnormalized log-probabilities; otherwise it is a network of its own (``value_function_representation``).
    ``relative_step_size`` weights the value loss against the policy loss, ``regularization_weight`` the
    negative-entropy term. ``initial_policy_network`` names a saved model to restore the policy network from.
    """

    _SETTINGS = GENERAL_SETTINGS + (
        ('shared_representation', 'PolicyGradient', 'SharedRepresentation', 'bool', False),
        ('policy_representation', 'PolicyGradient', 'PolicyRepresentation', 'text', 'nn'),
        ('relative_step_size', 'PolicyGradient', 'RelativeStepSize', 'float', 0.5),
        ('regularization_weight', 'PolicyGradient', 'RegularizationWeight', 'float', 0.001),
        ('policy_network_hidden_layers', 'NetworkModel', 'PolicyNetworkHiddenLayerNodes', 'text', '[10]'),
        ('value_function_representation', 'PolicyGradient', 'ValueFunctionRepresentation', 'text', 'nn'),
        ('value_network_hidden_layers', 'NetworkModel', 'ValueNetworkHiddenLayerNodes', 'text', '[10]'),
    ) + OPTIMIZATION_SETTINGS + (
        ('update_frequency', 'PolicyGradient', 'UpdateFrequency', 'int', 64),
        ('initial_policy_network', 'PolicyGradient', 'InitialPolicy', 'text', ''),
    )
