"""Function.save / load_model / Function.restore round trips (core/serialization.py)."""
import re

import numpy as np
import pytest

import cntk as C
from cntk.ops.functions import UserFunction


def _round_trip(f, tmp_path, name="model.cntk"):
    path = str(tmp_path / name)
    f.save(path)
    return C.load_model(path)


def test_dense_model_round_trip_keeps_values_names_and_parameter_kinds(tmp_path):
    x = C.input_variable(3, name="x")
    model = C.layers.Sequential([C.layers.Dense(4, activation=C.relu, name="hidden"),
                                 C.layers.Dense(2, name="out")])(x)
    data = np.random.rand(5, 3).astype(np.float32)
    loaded = _round_trip(model, tmp_path)
    assert np.allclose(loaded.eval(data), model.eval(data))
    assert [a.name for a in loaded.arguments] == ["x"]
    assert all(isinstance(p, C.Parameter) for p in loaded.parameters)
    assert loaded.find_by_name("hidden") is not None
    assert sorted(p.shape for p in loaded.parameters) == sorted(p.shape for p in model.parameters)
    # the loaded parameters are new objects: changing them leaves the original model alone
    before = model.parameters[0].value
    loaded.parameters[0].value = before + 1
    assert np.array_equal(model.parameters[0].value, before)


def test_convolution_model_round_trip(tmp_path):
    x = C.input_variable((1, 6, 6))
    model = C.layers.Convolution2D((3, 3), 2, pad=True, activation=C.relu)(x)
    data = np.random.rand(2, 1, 6, 6).astype(np.float32)
    loaded = _round_trip(model, tmp_path)
    assert np.allclose(loaded.eval(data), model.eval(data), atol=1e-6)


def test_block_round_trip_keeps_the_block(tmp_path):
    x = C.input_variable(2, name="x")
    w = C.parameter((2, 2), init=np.array([[1., 2.], [3., 4.]], np.float32), name="w")
    ph = C.placeholder()
    inner = C.times(ph, w) + 1
    block = C.as_block(inner, [(ph, x)], "MyBlock", "blk")
    loaded = _round_trip(block, tmp_path)
    assert loaded.root_function.is_block
    assert loaded.root_function.op_name == "MyBlock"
    assert loaded.name == "blk"
    data = np.array([[1., 1.]], np.float32)
    assert np.allclose(loaded.eval(data), [[5., 7.]])


def test_float64_and_constants_round_trip(tmp_path):
    x = C.input_variable(2, dtype=np.float64, name="x")
    c = C.constant(np.array([0.5, -1.5]), dtype=np.float64, name="c")
    f = C.element_times(x, c, name="scaled")
    loaded = _round_trip(f, tmp_path)
    assert loaded.output.dtype == np.float64
    assert loaded.find_by_name("c").value.dtype == np.float64
    data = np.array([[2., 4.]])
    result = loaded.eval(data)
    assert result.dtype == np.float64
    assert np.array_equal(result, [[1., -6.]])


def test_attributes_of_ops_survive(tmp_path):
    x = C.input_variable((2, 3), name="x")
    f = C.reduce_sum(C.transpose(C.reshape(x, (3, 2)), (1, 0)), axis=1)
    data = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    loaded = _round_trip(f, tmp_path)
    assert loaded.output.shape == f.output.shape
    assert np.array_equal(loaded.eval(data), f.eval(data))


def test_load_from_bytes_buffer(tmp_path):
    x = C.input_variable(1)
    f = x * 3
    path = str(tmp_path / "m")
    f.save(path)
    with open(path, "rb") as fh:
        loaded = C.Function.load(fh.read())
    assert np.allclose(loaded.eval(np.array([[2.]], np.float32)), [[6.]])


def test_restore_copies_parameter_values_in_place(tmp_path):
    x = C.input_variable(2)
    model = C.layers.Dense(3)(x)
    path = str(tmp_path / "m")
    model.save(path)
    saved = [p.value for p in model.parameters]
    for p in model.parameters:
        p.value = np.full(p.shape, 7, np.float32)
    model.restore(path)
    for p, v in zip(model.parameters, saved):
        assert np.array_equal(p.value, v)
    other = C.layers.Dense(5)(C.input_variable(2))
    with pytest.raises(ValueError, match=r"is not equivalent \(isomorphic\) to the Function"):
        other.restore(path)


def test_truncated_and_foreign_files_give_clear_errors(tmp_path):
    x = C.input_variable(1)
    path = str(tmp_path / "m")
    (x + 1).save(path)
    with open(path, "rb") as fh:
        data = fh.read()
    truncated = tmp_path / "truncated"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(RuntimeError, match="truncated or corrupt"):
        C.load_model(str(truncated))
    foreign = tmp_path / "foreign"
    foreign.write_bytes(b"\x08\x01 not a zip archive")
    with pytest.raises(RuntimeError, match="not a model saved by cntk-compat"):
        C.load_model(str(foreign))
    with pytest.raises(ValueError, match="Cannot load the model .* that is neither a file nor a byte buffer"):
        C.load_model(str(tmp_path / "missing"))


class Scale(UserFunction):
    def __init__(self, arg, factor, name="scale"):
        super(Scale, self).__init__([arg], name=name)
        self.factor = factor

    def infer_outputs(self):
        x = self.inputs[0]
        return [C.output_variable(x.shape, x.dtype, x.dynamic_axes)]

    def forward(self, argument, device=None, outputs_to_retain=None):
        return None, argument * self.factor

    def backward(self, state, root_gradients):
        return root_gradients * self.factor

    def serialize(self):
        return {"factor": self.factor}

    @staticmethod
    def deserialize(inputs, name, state):
        return Scale(inputs[0], state["factor"], name)


def test_user_function_round_trip_through_serialize_and_callback(tmp_path):
    x = C.input_variable(2)
    f = C.user_function(Scale(x, 2.5)) + 1
    data = np.array([[1., 2.]], np.float32)
    loaded = _round_trip(f, tmp_path)
    assert np.allclose(loaded.eval(data), [[3.5, 6.]])

    op_name = Scale._op_name()
    C.Function.register_udf_deserialize_callback(op_name, lambda inputs, name, state: Scale(inputs[0], 10.0, name))
    try:
        with pytest.raises(ValueError, match="already registered"):
            C.Function.register_udf_deserialize_callback(op_name, lambda *a: None)
        reloaded = _round_trip(f, tmp_path, "again")
        assert np.allclose(reloaded.eval(data), [[11., 21.]])
    finally:
        from cntk_compat.core import registry
        del registry._UDF_LOADERS[op_name]


def test_custom_attributes_are_saved(tmp_path):
    f = C.plus(C.input_variable(1), 1, name="p")
    f.custom_attributes = {"version": 3, "note": "x"}
    loaded = _round_trip(f, tmp_path)
    assert loaded.custom_attributes == {"version": 3, "note": "x"}
    with pytest.raises(TypeError):
        f.custom_attributes = [1]


def test_version_2_files_keep_a_user_function_state_under_its_old_key(tmp_path):
    import io
    import json
    import zipfile
    x = C.input_variable(2)
    from cntk_compat.core import serialization
    path = str(tmp_path / "udf")
    with open(path, "wb") as f:  # this package's archive (save() writes CNTK's v2 format for this graph)
        f.write(serialization.model_bytes(C.user_function(Scale(x, 2.5)) + 1))
    with zipfile.ZipFile(path) as archive:
        graph = json.loads(archive.read("graph.json"))
        tensors = archive.read("tensors.pt")
    assert graph["version"] == 3
    graph["version"] = 2
    for node in graph["nodes"]:
        if "op_state" in node:
            node["user_function"] = node.pop("op_state")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("graph.json", json.dumps(graph))
        archive.writestr("tensors.pt", tensors)
    loaded = C.Function.load(buffer.getvalue())
    assert np.allclose(loaded.eval(np.array([[1., 2.]], np.float32)), [[3.5, 6.]])


def test_restore_refuses_a_model_that_is_not_isomorphic_with_cntks_message(tmp_path):
    path = str(tmp_path / "seq.model")
    C.layers.Dense(3)(C.sequence.input_variable(2)).save(path)
    for other in (C.layers.Dense(3)(C.input_variable(2)), C.layers.Dense(3)(C.input_variable(3))):
        with pytest.raises(ValueError, match=re.escape(
                "Function '%r' being restored is not equivalent (isomorphic) to the Function '" % other)):
            other.restore(path)
    same = C.layers.Dense(3)(C.sequence.input_variable(2))
    same.restore(path)
    np.testing.assert_array_equal(same.parameters[0].value, C.load_model(path).parameters[0].value)
