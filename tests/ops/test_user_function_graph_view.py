"""A user function as CNTK 2.7's graph hands it out: root_function, depth_first_search and find_by_name give a
Function whose op_name is 'UserFunction' (the Python object keeps '<module>.<class>'), and a composite over one
prints as Composite(UserFunction)."""
import cntk as C
from tests._user_functions import Doubling


def test_the_graph_shows_a_user_function_as_cntk_does():
    x = C.input_variable(3)
    udf = Doubling(x, name='twice')
    assert udf.op_name == Doubling.__module__ + ".Doubling"
    f = C.user_function(udf)
    assert (f.op_name, f.root_function.op_name) == ("CompositeFunctionOpName", "UserFunction")
    assert repr(f).startswith("Composite(UserFunction): Input(")
    g = f + 1
    found = C.logging.graph.depth_first_search(g, lambda n: isinstance(n, C.Function), depth=-1)
    assert [(n.op_name, n.name) for n in found] == [("Plus", ""), ("UserFunction", "twice")]
    assert g.find_by_name("twice").op_name == "UserFunction"
    assert g.find_by_name("twice").uid == udf.uid
