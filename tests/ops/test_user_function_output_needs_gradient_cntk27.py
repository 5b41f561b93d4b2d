"""A user function's declared outputs need a gradient as their output_variable() says, as in CNTK 2.7 (session 20
sweep, read from CNTK 2.7): True by default, also over inputs that need none; backward is still called only
where an input needs a gradient."""
import numpy as np

import cntk as C


class _Square(C.ops.functions.UserFunction):
    def __init__(self, arg, needs_gradient=True, name='sq'):
        super(_Square, self).__init__([arg], name=name)
        self.out_needs_gradient = needs_gradient
        self.backward_calls = 0

    def forward(self, argument, device=None, outputs_to_retain=None):
        return argument, argument * argument

    def backward(self, state, root_gradients):
        self.backward_calls += 1
        return 2 * state * root_gradients

    def infer_outputs(self):
        x = self.inputs[0]
        return [C.output_variable(x.shape, x.dtype, x.dynamic_axes, needs_gradient=self.out_needs_gradient)]


def test_declared_outputs_keep_their_needs_gradient():
    x = C.input_variable(3)
    assert C.user_function(_Square(x)).output.needs_gradient is True
    assert C.user_function(_Square(x, needs_gradient=False)).output.needs_gradient is False
    d = C.layers.Dense(3)(x)
    assert C.user_function(_Square(d)).output.needs_gradient is True


def test_training_over_an_input_only_user_function_does_not_call_backward():
    x = C.input_variable(3)
    y = C.input_variable(2)
    udf = _Square(x)
    z = C.layers.Dense(2)(C.user_function(udf))
    t = C.Trainer(z, (C.squared_error(z, y), None), [C.sgd(z.parameters, 0.1)])
    t.train_minibatch({x: np.ones((2, 3), np.float32), y: np.zeros((2, 2), np.float32)})
    assert udf.backward_calls == 0
