"""The predefined networks of the agents.

Each builder returns a dict: 'inputs' (the observation input, or a placeholder to be replaced by one),
'outputs' (an input variable for the training targets), 'f' (the network) and 'loss' (the loss of 'f' against
'outputs': ``loss_function(f, outputs)``, squared error when none is given). Hidden layers are ReLU Dense layers
whose widths come from a Python-literal string such as "[64, 32]".
"""
import ast

import numpy as np

import cntk_compat.layers as _layers
import cntk_compat.losses as _losses
import cntk_compat.ops as _ops


def model_variables(shape_of_inputs, number_of_outputs, use_placeholder_for_input):
    """(inputs, outputs): the observation input (float32, or a placeholder when asked) and the float32 target
    input of ``number_of_outputs`` values."""
    if use_placeholder_for_input:
        inputs = _ops.placeholder(shape=shape_of_inputs)
    else:
        inputs = _ops.input_variable(shape=shape_of_inputs, dtype=np.float32)
    return inputs, _ops.input_variable(shape=(number_of_outputs,), dtype=np.float32)


def model_dict(inputs, outputs, f, loss_function):
    """The dict the builders return; the loss is squared error unless ``loss_function`` is given."""
    loss = _losses.squared_error(f, outputs) if loss_function is None else loss_function(f, outputs)
    return {'inputs': inputs, 'outputs': outputs, 'f': f, 'loss': loss}


def _relu_stack(widths):
    return [_layers.Dense(width, activation=_ops.relu) for width in widths]


class Models:
    """Builders of the networks that approximate Q (Q-learning) or log pi (actor-critic; there the loss is
    ``cross_entropy_with_softmax``)."""

    @staticmethod
    def feedforward_network(shape_of_inputs, number_of_outputs, model_hidden_layers, loss_function=None,
                            use_placeholder_for_input=False):
        """ReLU hidden layers as listed by ``model_hidden_layers``, then a linear layer of
        ``number_of_outputs`` units."""
        inputs, outputs = model_variables(shape_of_inputs, number_of_outputs, use_placeholder_for_input)
        widths = ast.literal_eval(model_hidden_layers)
        f = _layers.Sequential(_relu_stack(widths) + [_layers.Dense(number_of_outputs, activation=None)])(inputs)
        return model_dict(inputs, outputs, f, loss_function)

    @staticmethod
    def dueling_network(shape_of_inputs, number_of_outputs, model_hidden_layers, loss_function=None,
                        use_placeholder_for_input=False):
        """Dueling architecture (Wang et al. 2016): a shared trunk feeds a state-value head V (one unit) and an
        advantage head A (one unit per action); Q = V + A - mean(A).

        ``model_hidden_layers`` reads "[trunk widths..., [V widths], [A widths]]"; None entries are skipped.
        """
        inputs, outputs = model_variables(shape_of_inputs, number_of_outputs, use_placeholder_for_input)
        trunk_widths, value_widths, advantage_widths = \
            Models._parse_dueling_network_structure(model_hidden_layers)
        trunk = _layers.Sequential(_relu_stack(trunk_widths))(inputs)
        value = _layers.Sequential(_relu_stack(value_widths) + [_layers.Dense(1, activation=None)])(trunk)
        advantage = _layers.Sequential(
            _relu_stack(advantage_widths) + [_layers.Dense(number_of_outputs, activation=None)])(trunk)
        q = value + advantage - _ops.reduce_mean(advantage)
        return model_dict(inputs, outputs, q, loss_function)

    @staticmethod
    def _parse_dueling_network_structure(hidden_layers_str):
        """(trunk, value, advantage) width lists of a dueling structure string, None entries dropped."""
        spec = ast.literal_eval(hidden_layers_str)
        if len(spec) < 3 or not isinstance(spec[-2], list) or not isinstance(spec[-1], list):
            raise ValueError('dueling network structure must read "[trunk widths..., [value widths], '
                             '[advantage widths]]", got {0!r}'.format(hidden_layers_str))
        return tuple([w for w in widths if w is not None] for widths in (spec[:-2], spec[-2], spec[-1]))
