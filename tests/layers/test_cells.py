"""LSTM, GRU and RNNStep cells: parameter shapes as CNTK reports them and one step against numpy."""
import numpy as np
import pytest

import cntk as C
from cntk.layers import GRU, LSTM, RNNStep


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _params(f):
    return {p.name: p for p in f.parameters}


def _inputs(*dims):
    return [C.input_variable(d) for d in dims]


def test_lstm_step_matches_numpy():
    dh, dc, x = _inputs(3, 3, 2)
    f = LSTM(3)(dh, dc, x)
    p = _params(f)
    assert {k: v.shape for k, v in p.items()} == {"W": (2, 12), "H": (3, 12), "b": (12,)}
    rng = np.random.RandomState(0)
    h0, c0, x0 = rng.randn(1, 3).astype(np.float32), rng.randn(1, 3).astype(np.float32), rng.randn(1, 2).astype(
        np.float32)
    out = f.eval({dh: h0, dc: c0, x: x0})
    h, c = (out[o] for o in f.outputs)
    gates = x0 @ p["W"].value + h0 @ p["H"].value + p["b"].value
    i, cin, fg, o = np.split(gates, 4, axis=-1)
    c_exp = _sigmoid(fg) * c0 + _sigmoid(i) * np.tanh(cin)
    np.testing.assert_allclose(c, c_exp, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(h, _sigmoid(o) * np.tanh(c_exp), rtol=1e-5, atol=1e-5)


def test_lstm_peepholes_projection_and_stabilizers_add_parameters():
    dh, dc, x = _inputs(4, 5, 2)
    f = LSTM(4, cell_shape=5, use_peepholes=True, enable_self_stabilization=True)(dh, dc, x)
    shapes = sorted((p.name, p.shape) for p in f.parameters)
    assert ("P", (5, 4)) in shapes and ("Ci", (5,)) in shapes and ("H", (4, 20)) in shapes
    assert sum(1 for n, _ in shapes if n == "alpha") == 4  # dh, dc, c and P stabilizers


def test_gru_step_matches_numpy():
    dh, x = _inputs(3, 2)
    f = GRU(3)(dh, x)
    p = _params(f)
    assert {k: v.shape for k, v in p.items()} == {"W": (2, 9), "H": (3, 6), "H1": (3, 3), "b": (9,)}
    rng = np.random.RandomState(1)
    h0, x0 = rng.randn(1, 3).astype(np.float32), rng.randn(1, 2).astype(np.float32)
    from_x = x0 @ p["W"].value + p["b"].value
    from_h = h0 @ p["H"].value
    z = _sigmoid(from_x[:, :3] + from_h[:, :3])
    r = _sigmoid(from_x[:, 3:6] + from_h[:, 3:6])
    cand = np.tanh(from_x[:, 6:] + (h0 * r) @ p["H1"].value)
    np.testing.assert_allclose(f.eval({dh: h0, x: x0}), (1 - z) * cand + z * h0, rtol=1e-5, atol=1e-5)


def test_rnn_step_and_its_deprecated_name():
    dh, x = _inputs(3, 2)
    f = RNNStep(3, activation=C.relu)(dh, x)
    p = _params(f)
    h0, x0 = np.ones((1, 3), np.float32), np.ones((1, 2), np.float32)
    expected = np.maximum(x0 @ p["W"].value + h0 @ p["H"].value + p["b"].value, 0)
    np.testing.assert_allclose(f.eval({dh: h0, x: x0}), expected, rtol=1e-5)
    with pytest.warns(DeprecationWarning):
        assert C.layers.RNNUnit(3).root_function.op_name == "RNNStep"


def test_cells_want_vector_shapes():
    with pytest.raises(ValueError, match="rank-1"):
        LSTM((2, 3))


@pytest.mark.parametrize("shape, cell_shape", [(4, 6), (6, 4), (4, 8)])
def test_gru_with_a_cell_shape_other_than_its_shape_fails_at_graph_building_as_in_cntk(shape, cell_shape):
    # CNTK 2.7's GRU multiplies the previous output (shape) by the reset gate (cell_shape) and that product by
    # H1 (shape, cell_shape): a projected GRU cannot be built there (CNTK 2.7 raises "Times: The 1 leading
    # dimensions of the right operand ... do not match the left operand's trailing dimensions" under
    # Recurrence); the same graph is refused here with the same kind of error, when it is built
    x = C.sequence.input_variable(3)
    with pytest.raises(ValueError, match="Times: The 1 leading dimensions"):
        C.layers.Recurrence(GRU(shape, cell_shape=cell_shape))(x)


def test_gru_with_cell_shape_equal_to_shape_has_cntks_projection():
    # CNTK 2.7: GRU(4, cell_shape=4) adds the projection P (4, 4) and runs
    x = C.sequence.input_variable(3)
    r = C.layers.Recurrence(GRU(4, cell_shape=4))(x)
    assert sorted((p.name, p.shape) for p in r.parameters) == [
        ("H", (4, 8)), ("H1", (4, 4)), ("P", (4, 4)), ("W", (3, 12)), ("b", (12,))]
    out = r.eval({x: [np.ones((2, 3), np.float32)]})
    assert out[0].shape == (2, 4)
