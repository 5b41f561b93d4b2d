"""A user function for tests that need one: twice its input, forward and backward."""
import cntk_compat as C
from cntk_compat.ops.functions import UserFunction


class Doubling(UserFunction):
    def __init__(self, arg, name="Doubling"):
        super().__init__([arg], name=name)

    def forward(self, argument, device=None, outputs_to_retain=None):
        return None, argument * 2

    def backward(self, state, root_gradients):
        return root_gradients * 2

    def infer_outputs(self):
        a = self.inputs[0]
        return [C.output_variable(a.shape, a.dtype, a.dynamic_axes)]

    @staticmethod
    def deserialize(inputs, name, state):
        return Doubling(inputs[0], name)
