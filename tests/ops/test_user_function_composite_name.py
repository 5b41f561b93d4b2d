"""user_function(u) is a composite with no name of its own: its root primitive keeps the user function's name, and
print() shows the composite without a name, as in CNTK 2.7 (boeddeker/cntk_helper printed "UserFunction(in_data:
...)" there; here it printed "f1: UserFunction(...)"). Strings and names from CNTK 2.7."""
import cntk as C
from cntk.ops.functions import UserFunction


class _Twice(UserFunction):
    def __init__(self, a, name='f1'):
        super(_Twice, self).__init__([a], name=name)

    def forward(self, x, device=None, outputs_to_retain=None):
        return None, x * 2

    def backward(self, state, root_gradients):
        return root_gradients * 2

    def infer_outputs(self):
        return [C.output_variable(self.inputs[0].shape, self.inputs[0].dtype, self.inputs[0].dynamic_axes)]


def test_user_function_composite_is_nameless():
    x = C.input_variable(3, name='x')
    f = C.user_function(_Twice(x, name='MyU'))
    assert f.name == ''
    assert f.root_function.name == 'MyU'
    assert (f.op_name, f.root_function.op_name, f.is_composite) == ('CompositeFunctionOpName', 'UserFunction', True)
    assert str(f) == 'UserFunction(x: Tensor[3]) -> Tensor[3]'
    assert str(f.root_function) == 'MyU: UserFunction(x: Tensor[3]) -> Tensor[3]'
    assert str(C.user_function(_Twice(x * 1))) == 'Composite(x: Tensor[3]) -> Tensor[3]'
