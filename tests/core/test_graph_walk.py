"""core.graph.walk, the one walk clone, re-inference, serialization and Function's leaves share."""
import numpy as np

import cntk as C
from cntk_compat.core.graph import node_inputs_and_body, walk


def _chain(x, length):
    y = x
    for _ in range(length):
        y = y + 1
    return y


def test_clone_save_and_load_of_a_graph_deeper_than_the_recursion_limit(tmp_path):
    x = C.input_variable(2)
    deep = _chain(x, 1100)
    data = np.zeros((1, 2), np.float32)
    cloned = deep.clone(C.CloneMethod.clone)
    np.testing.assert_array_equal(cloned.eval({cloned.arguments[0]: data}), [[1100., 1100.]])
    applied = deep(C.input_variable(2))
    np.testing.assert_array_equal(applied.eval({applied.arguments[0]: data}), [[1100., 1100.]])
    path = str(tmp_path / "deep.model")
    deep.save(path)
    loaded = C.Function.load(path)
    np.testing.assert_array_equal(loaded.eval({loaded.arguments[0]: data}), [[1100., 1100.]])


def test_nodes_come_after_their_inputs_and_leaves_in_cntk_order():
    x = C.input_variable(2, name="x")
    w = C.parameter((2,), init=1.0, name="w")
    b = C.parameter((2,), init=0.0, name="b")
    f = C.plus(C.element_times(x, w, name="xw"), b, name="out")
    graph = walk(f.outputs)
    assert [v.name for v in graph.leaves] == ["x", "w", "b"] == [v.name for v in f.inputs]
    assert [n.name for n in graph.nodes] == ["xw", "out"]
    assert graph.loop_references == []


def test_a_recurrent_loop_is_reported_once_as_a_back_reference():
    x = C.sequence.input_variable(1)
    ph = C.placeholder()
    h = C.plus(x, C.sequence.past_value(ph), name="h")
    h.replace_placeholders({ph: h.output})
    graph = walk(h.outputs)
    assert [v.owner.name for v in graph.loop_references] == ["h"]
    assert {n.name for n in graph.nodes} >= {"h"}
    assert len(graph.nodes) == len({id(n) for n in graph.nodes})


def test_entering_blocks_reaches_the_body():
    x = C.input_variable(3)
    dense = C.layers.Dense(2, name="d")(x)
    outer = walk(dense.outputs)
    inner = walk(dense.outputs, node_inputs_and_body)
    assert [n.op_name for n in outer.nodes] == ["Dense"]
    assert "Times" in [n.op_name for n in inner.nodes] and inner.nodes[-1].op_name == "Dense"
    assert {p.name for p in inner.leaves if p.is_parameter} == {"W", "b"}
