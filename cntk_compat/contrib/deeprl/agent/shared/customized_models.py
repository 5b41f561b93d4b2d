"""An example of a user-defined network for the agents.

Setting ``QRepresentation`` (Q-learning) or ``PolicyRepresentation`` / ``ValueFunctionRepresentation``
(actor-critic) to 'module.function' makes the agent import that function and call it as
``function(shape_of_inputs, number_of_outputs, loss_function, use_placeholder_for_input=...)``; it returns the
same dict as the builders of ``models`` ('inputs', 'outputs', 'f', 'loss').
"""
import cntk_compat.layers as _layers
import cntk_compat.ops as _ops

from .models import model_dict, model_variables


def conv_dqn(shape_of_inputs, number_of_outputs, loss_function=None, use_placeholder_for_input=False):
    """Convolutional Q network for stacks of 84x84 screens in the manner of DQN (Mnih et al. 2015): pixels
    centred and scaled ((x - 128) / 256), ReLU convolutions 8x8/32 stride 4, 4x4/64 stride 2 and 3x3/64 stride 2
    (unpadded), a ReLU Dense layer of 512 units and a linear output per action."""
    inputs, outputs = model_variables(shape_of_inputs, number_of_outputs, use_placeholder_for_input)
    scaled = (inputs - 128) / 256
    q = _layers.Sequential([
        _layers.Convolution((8, 8), 32, strides=4, activation=_ops.relu),
        _layers.Convolution((4, 4), 64, strides=2, activation=_ops.relu),
        _layers.Convolution((3, 3), 64, strides=2, activation=_ops.relu),
        _layers.Dense((512,), activation=_ops.relu),
        _layers.Dense(number_of_outputs, activation=None),
    ])(scaled)
    return model_dict(inputs, outputs, q, loss_function)
