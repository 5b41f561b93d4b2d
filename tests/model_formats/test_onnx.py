"""ONNX out (torch.onnx, dynamic batch and sequence axes, CNTK names) and in (ONNX nodes -> this package's
ops); checked with onnx.checker and onnxruntime. Skipped without the [onnx] extra."""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import cntk_compat as C  # noqa: E402
from cntk_compat.layers import LSTM, Dense, Recurrence, Sequential  # noqa: E402


def _dense_model():
    x = C.input_variable(3, name="features")
    return Sequential([Dense(4, activation=C.relu, name="hidden"), Dense(2, activation=C.softmax, name="out")])(x)


def test_lstm_export_matches_for_every_length(tmp_path):
    s = C.sequence.input_variable(3, name="s")
    model = Sequential([Recurrence(LSTM(4)), Dense(2, name="out")])(s)
    path = str(tmp_path / "lstm.onnx")
    model.save(path, format=C.ModelFormat.ONNX)
    proto = onnx.load(path)
    onnx.checker.check_model(proto)
    assert "LSTM" in {n.op_type for n in proto.graph.node}  # the loop is one ONNX LSTM node
    assert [i.name for i in proto.graph.input] == ["s"] and [o.name for o in proto.graph.output] == ["out"]
    session = ort.InferenceSession(path)
    rng = np.random.RandomState(0)
    for length in range(1, 7):
        batch = rng.uniform(-1, 1, (3, length, 3)).astype(np.float32)
        ours = np.stack(model.eval({s: batch}))
        np.testing.assert_allclose(session.run(None, {"s": batch})[0], ours, rtol=1e-5, atol=1e-6)


def test_dense_export_keeps_cntk_names_and_imports_back(tmp_path):
    model = _dense_model()
    path = str(tmp_path / "dense.onnx")
    model.save(path, format=C.ModelFormat.ONNX)
    proto = onnx.load(path)
    onnx.checker.check_model(proto)
    assert {i.name for i in proto.graph.initializer} >= {"hidden.W", "hidden.b", "out.W", "out.b"}
    x = np.random.RandomState(1).uniform(-1, 1, (5, 3)).astype(np.float32)
    np.testing.assert_allclose(ort.InferenceSession(path).run(None, {"features": x})[0], model.eval(x),
                               rtol=1e-6, atol=1e-6)

    loaded = C.Function.load(path, format=C.ModelFormat.ONNX)
    assert [a.name for a in loaded.arguments] == ["features"]
    np.testing.assert_allclose(loaded.eval(x), model.eval(x), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(loaded.clone(C.CloneMethod.clone).eval(x), model.eval(x), rtol=1e-6, atol=1e-6)
    again = tmp_path / "again.model"
    loaded.save(str(again))
    np.testing.assert_allclose(C.load_model(str(again)).eval(x), model.eval(x), rtol=1e-6, atol=1e-6)
    # the imported initializers are Parameters: it trains
    label = C.input_variable(2)
    out = loaded.outputs[0]
    loss = C.squared_error(out, label)
    learner = C.sgd(loaded.parameters, C.learning_parameter_schedule(0.5))
    trainer = C.Trainer(out, (loss, None), [learner])
    before = [p.value.copy() for p in loaded.parameters]
    trainer.train_minibatch({loaded.arguments[0]: x, label: np.eye(2, dtype=np.float32)[[0, 1, 0, 1, 0]]})
    assert any(not np.array_equal(b, p.value) for b, p in zip(before, loaded.parameters))


def test_an_onnx_node_without_mapping_is_named(tmp_path):
    from onnx import TensorProto, helper
    node = helper.make_node("Hardmax", ["x"], ["y"], name="the_hardmax")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])])
    path = tmp_path / "h.onnx"
    path.write_bytes(helper.make_model(graph).SerializeToString())
    with pytest.raises(ValueError, match="the_hardmax.*Hardmax"):
        C.Function.load(str(path), format=C.ModelFormat.ONNX)
