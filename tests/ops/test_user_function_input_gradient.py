"""Trainer calls a user function's backward when only an input with needs_gradient=True lies upstream of it
(as CNTK, whose backward pass computes the gradients of such inputs); not when nothing upstream needs one."""
import numpy as np

import cntk as C
from cntk.ops.functions import UserFunction


class _Twice(UserFunction):
    def __init__(self, arg, calls, name="Twice"):
        super(_Twice, self).__init__([arg], name=name)
        self.calls = calls

    def forward(self, argument, device=None, outputs_to_retain=None):
        return None, 2 * argument

    def backward(self, state, root_gradients):
        self.calls.append(root_gradients.shape)
        return 2 * root_gradients

    def infer_outputs(self):
        x = self.inputs[0]
        return [C.output_variable(x.shape, x.dtype, x.dynamic_axes)]

    def clone(self, cloned_inputs):
        return _Twice(cloned_inputs[0], self.calls, self.name)


def _train_once(needs_gradient):
    calls = []
    x = C.input_variable(3, needs_gradient=needs_gradient)
    y = C.input_variable(2)
    z = C.layers.Dense(2)(C.user_function(_Twice(x, calls)))
    trainer = C.Trainer(z, (C.squared_error(z, y), None), [C.sgd(z.parameters, C.learning_parameter_schedule(0.1))])
    trainer.train_minibatch({x: np.ones((4, 3), np.float32), y: np.zeros((4, 2), np.float32)})
    return calls


def test_backward_runs_for_an_input_that_needs_a_gradient():
    assert _train_once(needs_gradient=True) == [(4, 3)]


def test_backward_is_skipped_when_nothing_upstream_needs_a_gradient():
    assert _train_once(needs_gradient=False) == []
