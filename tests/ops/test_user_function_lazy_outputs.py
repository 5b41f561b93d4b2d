"""A UserFunction's outputs are inferred when first needed (user_function(), .outputs), not in the base
constructor: CNTK's Extensibility/BinaryConvolution example sets the attribute its infer_outputs() uses after
calling UserFunction.__init__ (Multibit.bit_map). Checked against CNTK 2.7: infer_outputs is called once, by
user_function(), and the values below are CNTK's."""
import numpy as np

import cntk as C
from cntk.ops.functions import UserFunction


class _RepeatFirst(UserFunction):
    def __init__(self, arg, k, name='RepeatFirst'):
        super(_RepeatFirst, self).__init__([arg], name=name)
        self.k = k              # set after the base constructor; infer_outputs needs it
        self.infer_calls = 0

    def infer_outputs(self):
        self.infer_calls += 1
        x = self.inputs[0]
        return [C.output_variable((self.k,), x.dtype, x.dynamic_axes)]

    def forward(self, argument, device=None, outputs_to_retain=None):
        return None, np.repeat(argument[:, :1], self.k, axis=1) * 2

    def backward(self, state, root_gradients):
        return np.zeros((root_gradients.shape[0], 2), np.float32)


def test_infer_outputs_runs_after_the_subclass_constructor():
    x = C.input_variable(2)
    u = _RepeatFirst(x, 3)
    f = C.user_function(u)
    assert u.infer_calls == 1
    assert f.shape == (3,)
    np.testing.assert_array_equal(f.eval({x: np.array([[1, 2], [3, 4]], np.float32)}), [[2, 2, 2], [6, 6, 6]])
    assert u.infer_calls == 1


def test_outputs_of_the_instance_itself():
    x = C.input_variable(2)
    u = _RepeatFirst(x, 4)
    assert u.output.shape == (4,)
    assert len(u.outputs) == 1 and u.infer_calls == 1
