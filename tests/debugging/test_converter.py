"""cntk.misc.convert rewrites a graph; convert_optimized_rnnstack has nothing to convert here."""
import numpy as np
import pytest

import cntk as C
from cntk.logging.graph import depth_first_search
from cntk.misc import convert, convert_optimized_rnnstack


def _op(name):
    return lambda node: isinstance(node, C.Function) and node.op_name == name


def _two_dense_model():
    x = C.input_variable(3)
    hidden = C.layers.Dense(4, activation=C.relu, name='d1')(x)
    return x, hidden, C.plus(C.layers.Dense(2, name='d2')(hidden), 1.0)


def _data():
    return np.random.RandomState(3).rand(5, 3).astype(np.float32)


def _assert_close(got, want):
    """float32 results against float64 references: relative error within a few ulps of the operands' size,
    plus an absolute floor for results that cancel to near zero (the fused x.W + b and numpy's separate
    product and sum round differently there)."""
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _w(param):
    return param.value.astype(np.float64)


def _ops(model):
    return [n.op_name for n in depth_first_search(model, lambda n: isinstance(n, C.Function), depth=0)]


def test_replaces_ops_inside_blocks_and_shares_parameters():
    x, _, model = _two_dense_model()
    converted = convert(model, _op('ReLU'), lambda f: C.tanh(f.inputs[0]))
    d1, d2 = model.find_by_name('d1'), model.find_by_name('d2')
    X = _data()
    X64 = X.astype(np.float64)
    expected = np.tanh(X64 @ _w(d1.W) + _w(d1.b)) @ _w(d2.W) + _w(d2.b) + 1
    _assert_close(converted.eval({converted.arguments[0]: X}), expected)
    assert set(p.uid for p in converted.parameters) == set(p.uid for p in model.parameters)
    assert _ops(converted).count('Dense') == 2  # the blocks stay blocks
    # the original graph is unchanged
    _assert_close(model.eval({x: X}), np.maximum(X64 @ _w(d1.W) + _w(d1.b), 0) @ _w(d2.W) + _w(d2.b) + 1)


def test_replaces_whole_blocks_and_the_root():
    x, _, model = _two_dense_model()
    d1, d2 = model.find_by_name('d1'), model.find_by_name('d2')
    no_bias = convert(model, _op('Dense'), lambda f: C.times(f.inputs[2], f.W))
    assert sorted(_ops(no_bias)) == ['Plus', 'Times', 'Times']
    X = _data()
    _assert_close(no_bias.eval({no_bias.arguments[0]: X}), X.astype(np.float64) @ _w(d1.W) @ _w(d2.W) + 1)
    minus = convert(model, _op('Plus'), lambda f: C.minus(f.inputs[0], f.inputs[1]))
    assert minus.root_function.op_name == 'Minus'
    _assert_close(minus.eval({minus.arguments[0]: X}), model.eval({x: X}).astype(np.float64) - 2)


def test_keeps_the_other_outputs_of_a_combined_root():
    x, hidden, model = _two_dense_model()
    both = C.combine([model, hidden])
    converted = convert(both, _op('Plus'), lambda f: C.minus(f.inputs[0], f.inputs[1]))
    assert [o.shape for o in converted.outputs] == [(2,), (4,)]
    X = _data()
    got = converted.eval({converted.arguments[0]: X})
    want = both.eval({x: X})
    _assert_close(got[converted.outputs[0]], want[both.outputs[0]].astype(np.float64) - 2)
    _assert_close(got[converted.outputs[1]], want[both.outputs[1]])


def test_no_match_returns_the_function_and_endless_conversion_is_an_error():
    _, _, model = _two_dense_model()
    assert convert(model, _op('Sigmoid'), lambda f: f) is model
    with pytest.raises(ValueError, match="still passes the filter"):
        convert(model, _op('Plus'), lambda f: C.plus(f.inputs[0], f.inputs[1]))
    with pytest.raises(TypeError, match="root_func"):
        convert("model", _op('Plus'), lambda f: f)


def test_convert_optimized_rnnstack_returns_a_model_without_such_nodes():
    _, _, model = _two_dense_model()
    assert convert_optimized_rnnstack(model) is model
