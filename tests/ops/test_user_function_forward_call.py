"""CNTK 2.7 calls a user function's forward with three positional arguments, forward(arguments, device,
outputs_to_retain) (with several outputs: forward(arguments, outputs, device, outputs_to_retain)): the device a
DeviceDescriptor, outputs_to_retain a list holding the outputs when a backward pass follows (gradients,
training) and empty otherwise (eval, test). CNTK's BinaryConvolution example declares forward(self, argument,
device, outputs_to_retain) without defaults. The calls below were recorded under CNTK 2.7."""
import numpy as np

import cntk as C
from cntk.ops.functions import UserFunction


class _Double(UserFunction):
    def __init__(self, arg, name='Double'):
        super(_Double, self).__init__([arg], name=name)
        self.calls = []

    def infer_outputs(self):
        x = self.inputs[0]
        return [C.output_variable(x.shape, x.dtype, x.dynamic_axes)]

    def forward(self, argument, device, outputs_to_retain):      # no defaults, as the example's
        self.calls.append((type(device).__name__, str(device), type(outputs_to_retain).__name__,
                           len(outputs_to_retain)))
        return None, argument * 2

    def backward(self, state, root_gradients):
        return root_gradients * 2


def test_forward_gets_device_and_outputs_to_retain():
    x = C.input_variable(2, needs_gradient=True)
    u = _Double(x)
    f = C.user_function(u)
    one = np.ones((1, 2), np.float32)
    np.testing.assert_array_equal(f.eval({x: one}), [[2, 2]])
    np.testing.assert_array_equal(f.grad({x: one}), [[2, 2]])
    p = C.parameter(2, init=1.0)
    v = _Double(x * p)
    g = C.user_function(v)
    loss = C.reduce_sum(g)
    t = C.Trainer(g, (loss, loss), C.sgd(g.parameters, C.learning_rate_schedule(0.1, C.UnitType.minibatch)))
    t.train_minibatch({x: one})
    t.test_minibatch({x: one})
    assert u.calls == [("DeviceDescriptor", "CPU", "list", 0), ("DeviceDescriptor", "CPU", "list", 1)]
    assert v.calls == [("DeviceDescriptor", "CPU", "list", 1), ("DeviceDescriptor", "CPU", "list", 0)]
    np.testing.assert_allclose(p.value, [0.8, 0.8])


class _Product(UserFunction):
    """Two inputs: forward gets them as one tuple (CapsNet-CNTK's user_matmul returns `args + (extra,)` as its
    state)."""

    def __init__(self, a, b, name='Product'):
        super(_Product, self).__init__([a, b], name=name)

    def infer_outputs(self):
        return [C.output_variable(self.inputs[1].shape, self.inputs[1].dtype, self.inputs[1].dynamic_axes)]

    def forward(self, args, device=None, outputs_to_retain=None):
        return args + (type(args).__name__,), args[0] * args[1]

    def backward(self, state, root_gradients, variables):
        a, b, kind = state
        assert kind == 'tuple'
        for v in variables:
            variables[v] = root_gradients * (b if v == self.inputs[0] else a)


def test_several_inputs_arrive_as_a_tuple():
    # CNTK 2.7: the arguments of a user function with several inputs are a tuple (values from CNTK 2.7)
    p = C.parameter(2, init=3.0)
    x = C.input_variable(2, needs_gradient=True)
    f = C.user_function(_Product(p, x))
    X = np.array([[1, 2]], np.float32)
    np.testing.assert_array_equal(f.eval({x: X}), [[3, 6]])
    g = f.grad({x: X}, wrt=[p, x])
    np.testing.assert_array_equal(g[p], [1, 2])
    np.testing.assert_array_equal(g[x], [[3, 3]])
