"""f >> g applies g to f's outputs, as CNTK composes: f keeps all of its free arguments (values checked against
the same graph written with calls)."""
import numpy as np

import cntk as C


def test_composition_keeps_every_free_argument_of_the_left_function():
    history = C.placeholder(name="history")
    source = C.input_variable(3, name="source")
    f = C.times(history, C.constant(np.eye(3, dtype=np.float32) * 2)) + source
    g = f >> C.hardmax
    assert [a.name for a in g.arguments] == ["history", "source"]
    x = C.input_variable(3, name="x")
    h = g.replace_placeholders({history: x})
    result = h.eval({x: np.array([[1, 0, 0]], np.float32), source: np.array([[0, 3, 0]], np.float32)})
    np.testing.assert_array_equal(result, [[0, 1, 0]])


def test_tuple_on_the_right_applies_each_function_to_the_single_output():
    x = C.input_variable(2)
    both = (x * 1) >> (C.negate, C.square)
    data = np.array([[1, -3]], np.float32)
    values = both.eval({x: data})
    negated, squared = (values[out] for out in both.outputs)
    np.testing.assert_array_equal(negated, -data)
    np.testing.assert_array_equal(squared, data ** 2)


def test_a_tuple_valued_left_function_passes_its_outputs_as_arguments():
    x = C.input_variable(2)
    pair = C.combine([x * 2, x + 1])
    joined = pair >> C.element_times
    np.testing.assert_array_equal(joined.eval({x: np.array([[1, 2]], np.float32)}), [[4, 12]])
