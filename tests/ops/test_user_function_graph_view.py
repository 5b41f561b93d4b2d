"""A user function as CNTK 2.7's graph hands it out: root_function, depth_first_search and find_by_name give a
Function whose op_name is 'UserFunction' (the Python object keeps '<module>.<class>'), and a composite over one
prints as Composite(UserFunction)."""
import cntk as C
from cntk.ops.functions import UserFunction


class TimesTwo(UserFunction):
    def __init__(self, a, name='twice'):
        super(TimesTwo, self).__init__([a], name=name)

    def forward(self, arguments, device=None, outputs_to_retain=None):
        return None, arguments * 2

    def backward(self, state, root_gradients):
        return root_gradients * 2

    def infer_outputs(self):
        x = self.inputs[0]
        return [C.output_variable(x.shape, x.dtype, x.dynamic_axes)]


def test_the_graph_shows_a_user_function_as_cntk_does():
    x = C.input_variable(3)
    udf = TimesTwo(x)
    assert udf.op_name == TimesTwo.__module__ + ".TimesTwo"
    f = C.user_function(udf)
    assert (f.op_name, f.root_function.op_name) == ("CompositeFunctionOpName", "UserFunction")
    assert repr(f).startswith("Composite(UserFunction): Input(")
    g = f + 1
    found = C.logging.graph.depth_first_search(g, lambda n: isinstance(n, C.Function), depth=-1)
    assert [(n.op_name, n.name) for n in found] == [("Plus", ""), ("UserFunction", "twice")]
    assert g.find_by_name("twice").op_name == "UserFunction"
    assert g.find_by_name("twice").uid == udf.uid
