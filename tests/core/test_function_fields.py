"""Function's fields are declared in one place (Function.__slots__): no module can attach others on the fly."""
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
    assert nodes and all(not hasattr(n, "__dict__") for n in nodes)
    with pytest.raises(AttributeError):
        f._an_undeclared_field = 1
