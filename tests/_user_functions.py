"""A user function for tests that need one: twice its input, forward and backward. Written as CNTK 2.7 code too
(tests/model_formats/test_cntkv2_write.py runs this file's source under CNTK 2.7)."""
import cntk as C
from cntk.ops.functions import UserFunction


class Doubling(UserFunction):
    def __init__(self, arg, name="Doubling"):
        super(Doubling, self).__init__([arg], name=name)

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
