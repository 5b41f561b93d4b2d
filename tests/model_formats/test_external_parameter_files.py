"""save(use_external_files_to_store_parameters=True): ONNX keeps each tensor in a file beside the model (ONNX's
external data); the CNTK format keeps its parameters in the model file and says so, as CNTK 2.7 does."""
import os

import numpy as np
import pytest

import cntk as C

onnx = pytest.importorskip("onnx")


def _dense():
    x = C.input_variable(2)
    return x, C.layers.Dense(3, init=C.glorot_uniform(seed=1), name="d")(x)


def test_onnx_keeps_each_tensor_in_its_own_file_and_loads_them_back(tmp_path):
    x, z = _dense()
    path = str(tmp_path / "m.onnx")
    z.save(path, format=C.ModelFormat.ONNX, use_external_files_to_store_parameters=True)
    files = sorted(os.listdir(str(tmp_path)))
    assert files == ["m.onnx", "m.onnx.tensor0", "m.onnx.tensor1"]
    weights = {p.shape: p.value for p in z.parameters}
    stored = {os.path.getsize(str(tmp_path / f)) for f in files[1:]}
    assert stored == {v.nbytes for v in weights.values()}
    model = onnx.load_model(path, load_external_data=False)
    assert all(t.data_location == onnx.TensorProto.EXTERNAL for t in model.graph.initializer)
    loaded = C.Function.load(path, format=C.ModelFormat.ONNX)
    data = np.array([[1.0, -2.0]], np.float32)  # an imported ONNX model has static inputs, as in CNTK 2.7
    np.testing.assert_allclose(loaded.eval({loaded.arguments[0]: data}), z.eval({x: data}), rtol=1e-6)


def test_onnx_with_external_files_loaded_from_a_buffer_asks_for_the_file_name(tmp_path):
    _, z = _dense()
    path = str(tmp_path / "m.onnx")
    z.save(path, format=C.ModelFormat.ONNX, use_external_files_to_store_parameters=True)
    with open(path, "rb") as f:
        data = f.read()
    with pytest.raises(ValueError, match="external data files; load it from its file name"):
        C.Function.load(data, format=C.ModelFormat.ONNX)
    os.remove(str(tmp_path / "m.onnx.tensor0"))
    with pytest.raises(ValueError, match="external data files of .* could not be read"):
        C.Function.load(path, format=C.ModelFormat.ONNX)


def test_the_cntk_format_warns_and_keeps_its_parameters_in_the_model_file(tmp_path):
    x, z = _dense()
    path = str(tmp_path / "m.model")
    with pytest.warns(UserWarning, match="only applies to the ONNX format"):
        z.save(path, use_external_files_to_store_parameters=True)
    assert os.listdir(str(tmp_path)) == ["m.model"]
    loaded = C.Function.load(path)
    data = np.ones((1, 2), np.float32)
    np.testing.assert_allclose(loaded.eval({loaded.arguments[0]: data}), z.eval({x: data}), rtol=1e-6)
