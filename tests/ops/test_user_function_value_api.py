"""A user function with as_numpy=False in the style of CNTK's Extensibility examples and docs: forward keeps
argument.deep_clone() as its state and backward evaluates a gradient Function on it with
device=state.device() (in CNTK the clone is the native Value, whose device is a method). Values checked
against CNTK 2.7."""
import numpy as np

import cntk as C
from cntk.ops.functions import UserFunction


class _ClipGrad(UserFunction):
    """sign(x) forward (as 1 / -1), straight-through gradient where |x| <= 1, both computed by CNTK Functions."""

    def __init__(self, arg, name='ClipGrad'):
        super(_ClipGrad, self).__init__([arg], as_numpy=False, name=name)
        self.fwd_in = C.input_variable(arg.shape, dynamic_axes=arg.dynamic_axes)
        self.fwd = C.element_select(C.greater(self.fwd_in, 0), 1, -1)
        self.grad_in = C.input_variable(arg.shape, dynamic_axes=arg.dynamic_axes)
        self.grad_root = C.input_variable(arg.shape, dynamic_axes=arg.dynamic_axes)
        self.grad = C.element_times(self.grad_root, C.less_equal(C.abs(self.grad_in), 1))

    def infer_outputs(self):
        x = self.inputs[0]
        return [C.output_variable(x.shape, x.dtype, x.dynamic_axes)]

    def forward(self, argument, device, outputs_to_retain):
        _, out = self.fwd.forward({self.fwd_in: argument}, self.fwd.outputs, device=device, as_numpy=False)
        return argument.deep_clone(), out[self.fwd.output]

    def backward(self, state, root_gradients):
        _, out = self.grad.forward({self.grad_in: state, self.grad_root: root_gradients}, self.grad.outputs,
                                   device=state.device(), as_numpy=False)
        return out[self.grad.output]


def test_value_state_and_device_call():
    x = C.input_variable(4, needs_gradient=True)
    f = C.user_function(_ClipGrad(x))
    data = np.array([[-2.0, -0.5, 0.5, 3.0]], np.float32)
    np.testing.assert_array_equal(f.eval({x: data}), [[-1, -1, 1, 1]])
    np.testing.assert_array_equal(f.grad({x: data}), [[0, 1, 1, 0]])
    clone = C.Value(data).deep_clone()
    assert str(clone.device()) == "CPU"
