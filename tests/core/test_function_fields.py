"""Function's fields are declared in one place (Function.__slots__): no module attaches others on the fly. User
code may set attributes of its own, as on CNTK 2.7's Functions."""
import numpy as np
import pytest

import cntk as C
from cntk_compat.core.graph import node_inputs_and_body, walk


def test_a_function_holds_only_its_declared_fields_after_building_evaluating_and_saving(tmp_path):
    x = C.sequence.input_variable(2)
    f = C.sequence.past_value(C.dropout(C.layers.Dense(2)(x), 0.5, seed=1)) + C.random.uniform_like(x, seed=2)
    f.custom_attributes = {"note": "kept"}
    f.eval({x: [np.ones((3, 2), np.float32)]})
    f.save(str(tmp_path / "m.model"))
    nodes = walk(f.outputs, node_inputs_and_body).nodes + [f]
    assert nodes and all(vars(n) == {} for n in nodes)


def test_user_code_can_set_attributes_of_a_function_as_in_cntk27():
    """CNTK 2.7's deeprl tests stub a network's evaluation with ``q.eval = MagicMock(...)``; the stub shadows the
    method for that object only, and a clone does not carry it."""
    x = C.input_variable(2)
    f = C.layers.Dense(2)(x)
    f.eval = lambda arguments: "stubbed"
    f.tag = 3
    assert f.eval({x: [[1, 2]]}) == "stubbed" and f.tag == 3
    g = f.clone("clone")
    assert not hasattr(g, "tag") and g.eval({g.arguments[0]: [[1, 2]]}).shape == (1, 2)


def test_variable_collections_are_tuples_as_in_cntk():
    """CNTK 2.7 returns tuples (scripts write ``z.parameters + (w,)``) and a tuple cannot be changed in place."""
    x = C.input_variable(3)
    f = C.combine([C.plus(x, C.parameter(3, name="p")), x * C.constant(2.0)])
    for collection in (f.outputs, f.inputs, f.arguments, f.parameters, f.constants, f.placeholders,
                       f.outputs[0].owner.inputs):
        assert isinstance(collection, tuple)
    assert [p.name for p in f.parameters + (C.parameter(1, name="q"),)] == ["p", "q"]


def test_uids_follow_cntks_scheme():
    """As CNTK 2.7 names them: outputs after their function, composites, blocks and user functions by kind."""
    from cntk.ops.functions import UserFunction

    class Twice(UserFunction):
        def __init__(self, arg):
            super(Twice, self).__init__([arg], name="Twice")

        def forward(self, argument, device=None, outputs_to_retain=None):
            return None, argument * 2

        def backward(self, state, root_gradients):
            return root_gradients * 2

        def infer_outputs(self):
            return [C.output_variable(self.inputs[0].shape, self.inputs[0].dtype, self.inputs[0].dynamic_axes)]

    x = C.input_variable(3)
    p = C.plus(x, x)
    d = C.layers.Dense(2)(x)
    u = C.user_function(Twice(x))
    assert p.output.uid == p.root_function.uid + "_Output_0" and p.root_function.uid.startswith("Plus")
    assert p.uid.startswith("CompositeFunction") and p.op_name == "CompositeFunctionOpName"
    assert d.root_function.uid.startswith("Block") and d.root_function.op_name == "Dense"
    assert d.output.uid == d.root_function.uid + "_Output_0"
    assert u.root_function.uid.startswith("UserDefinedFunction")
    assert u.output.uid == u.root_function.uid + "_Output_0"
    assert C.combine([p, d]).outputs[1].uid == d.output.uid     # combine passes its inputs' outputs on


def test_missing_attributes_raise_cntks_attribute_errors():
    # CNTK 2.7's Function.__getattr__ looks a name up in the graph, then on the single output variable, whose
    # SWIG class says "'Variable' object has no attribute ..." (Examples/Text/CharacterLM calls z.save_model)
    import pytest
    import cntk as C
    x = C.input_variable(3)
    z = C.layers.Dense(2)(x)
    with pytest.raises(AttributeError, match=r"^'Variable' object has no attribute 'save_model'$"):
        z.save_model("m.dnn")
    two = C.combine([z, x + 1])
    with pytest.raises(AttributeError, match=r"^Function does not have 'save_model' and it cannot be looked up "
                                             r"in its outputs because it does not have exactly one$"):
        two.save_model
    assert z.shape == (2,)  # the output's own attributes still answer
    assert not hasattr(z, "_no_such_thing")
