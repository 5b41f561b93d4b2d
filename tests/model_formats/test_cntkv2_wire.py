"""The direct wire codec (model_formats/cntkv2_wire.py) writes the messages the protobuf runtime writes for the same
Dictionary and reads files into the values the protobuf path reads (checked here against cntk_proto on edge
values, on models of this package's own graphs and on every CNTK-written v2 model under shared/legacy_models when
present); the layout CNTK 2.7 uses for models over 2 GB is written and read (checked at a lowered threshold)."""
import glob
import os
import struct

import numpy as np
import pytest

import cntk as C
from cntk_compat.model_formats import cntk_proto as P
from cntk_compat.model_formats import cntkv2_wire as wire
from cntk_compat.model_formats import cntkv2_writer
from cntk_compat.model_formats.cntkv2_values import (Float32, Shape, SizeT, StoredArray, StoredAxis,
                                                     dictionary_from_message, dictionary_to_message)

_LEGACY = "/work/shared/legacy_models"


def _same(a, b, where="top"):
    assert type(a) is type(b) or (isinstance(a, (int, float)) and isinstance(b, (int, float))), (where, a, b)
    if isinstance(a, dict):
        assert list(sorted(a)) == list(sorted(b)), where
        for k in a:
            _same(a[k], b[k], where + "/" + k)
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, "%s[%d]" % (where, i))
    elif isinstance(a, StoredArray):
        assert a.array.dtype == b.array.dtype and a.array.shape == b.array.shape, where
        assert a.array.tobytes() == b.array.tobytes(), where
        assert a.array.flags.writeable and a.array.flags.aligned
    elif isinstance(a, StoredAxis):
        assert (a.index, a.name, a.ordered) == (b.index, b.name, b.ordered), where
    elif isinstance(a, float):
        assert struct.pack("<d", a) == struct.pack("<d", b), where
    else:
        assert a == b and type(a) is type(b), (where, a, b)


_EDGE = {"none": None, "false": False, "true": True, "zero": 0, "minus": -1, "big": 2 ** 31 - 1, "low": -2 ** 31,
         "size": SizeT(2 ** 64 - 1), "size0": SizeT(0), "f32": Float32(0.1), "f32neg": Float32(-0.0),
         "f64": 1e-300, "nan": float("inf"), "s": "", "u": "λx", "shape0": Shape(()), "shape": Shape((2, -1, -3, 5)),
         "axis0": StoredAxis(0, "", False), "axis": StoredAxis(2 ** 31 - 1, "defaultDynamicAxis", True),
         "axisneg": StoredAxis(-3, "a", False), "empty": [], "nested": [[], {}, [1, [2.5]]], "d": {},
         "": {"": None},
         "a32": np.arange(6, dtype=np.float32).reshape(2, 3), "a64": np.array([[1.5], [-2.0]]),
         "a16": np.array([1.5, -65504], np.float16), "i8": np.array([-128, 0, 127], np.int8),
         "i16": np.array([-32768, -1, 0, 1, 32767], np.int16), "scalar": np.array(3.25, np.float32),
         "e32": np.zeros((0, 3), np.float32), "e64": np.zeros(0), "ei8": np.zeros(0, np.int8),
         "ei16": np.zeros(0, np.int16), "nonc": np.arange(12, dtype=np.float32).reshape(3, 4).T}


def _models():
    x = C.input_variable(3, name="x")
    h = C.layers.Dense(5, activation=C.relu, name="h")(x)
    yield C.layers.Dense(2)(h)
    s = C.sequence.input_variable(4)
    yield C.layers.Recurrence(C.layers.LSTM(3))(s)
    yield C.layers.BatchNormalization()(C.layers.Convolution((3, 3), 2)(C.input_variable((1, 6, 6))))


def test_edge_values_are_written_as_protobuf_writes_them():
    for key, value in _EDGE.items():
        values = {key: value}
        data = wire.dictionary_bytes(values)
        assert P.Dictionary.FromString(data) == dictionary_to_message(values), key
        assert data == dictionary_to_message(values).SerializeToString(), key  # one entry: one order
    data = wire.dictionary_bytes(_EDGE)
    assert P.Dictionary.FromString(data) == dictionary_to_message(_EDGE)


def test_edge_values_read_back_as_protobuf_reads_them():
    data = dictionary_to_message(_EDGE).SerializeToString()
    _same(wire.parse_dictionary(data, "edge"), dictionary_from_message(P.Dictionary.FromString(data)))


def test_models_are_written_and_read_as_protobuf_does():
    for model in _models():
        values = cntkv2_writer.model_dictionary(model)
        data = wire.dictionary_bytes(values)
        message = P.Dictionary.FromString(data)
        assert message == dictionary_to_message(values)
        _same(wire.parse_dictionary(data, "ours"), dictionary_from_message(message))


@pytest.mark.skipif(not os.path.isdir(_LEGACY), reason="shared/legacy_models is not here")
def test_cntk_written_v2_models_read_as_protobuf_reads_them():
    candidates = glob.glob(os.path.join(_LEGACY, "v2_*", "*"))
    candidates += glob.glob(os.path.join(_LEGACY, "_format_fixtures", "*"))
    files = [f for f in candidates
             if os.path.isfile(f) and not f.endswith((".md", ".py", ".txt", "SOURCE", ".json", ".npy", ".npz"))]
    read = 0
    for f in files:
        with open(f, "rb") as fh:
            data = fh.read()
        try:
            expected = dictionary_from_message(P.Dictionary.FromString(data))
        except Exception:
            continue  # a v1 model or another file
        _same(wire.parse_dictionary(data, f), expected)
        read += 1
    assert read >= 8


def test_the_layout_over_2gb_is_written_and_read(tmp_path, monkeypatch):
    monkeypatch.setattr(wire, "INT_MAX", 1000)  # as if the model were over 2 GB
    model = next(_models())
    values = cntkv2_writer.model_dictionary(model)
    parts = wire.dictionary_parts(values)
    data = b"".join(parts)
    magic, size = struct.unpack("<II", data[:8])
    assert magic == 0x636e746b
    message = P.Dictionary.FromString(data[8:8 + size])  # the message, without the tensors' values
    arrays = [r["value"] for r in values["inputs"] if "value" in r]
    assert sum(a.nbytes for a in arrays) == len(data) - 8 - size
    assert data[8 + size:] == b"".join(a.astype("<f4").tobytes() for a in arrays)  # in the message's order
    assert len(_arrays_in(message)) == len(arrays)
    assert all(not r.HasField("float_values") for r in _arrays_in(message))
    path = tmp_path / "big.model"
    path.write_bytes(data)
    _same(wire.read_file(str(path), "big"), dictionary_from_message(P.Dictionary.FromString(
        dictionary_to_message(values).SerializeToString())))
    path.write_bytes(data[:-1])
    with pytest.raises(ValueError, match="truncated"):
        wire.read_file(str(path), "big")
    path.write_bytes(data + b"\0")
    with pytest.raises(ValueError, match="after its last"):
        wire.read_file(str(path), "big")


def _arrays_in(message):
    """The NDArrayView messages in a Dictionary message, depth first."""
    found = []

    def visit(value):
        kind = value.WhichOneof("value")
        if kind == "nd_array_view_value":
            found.append(value.nd_array_view_value)
        elif kind == "vector_value":
            for v in value.vector_value.value:
                visit(v)
        elif kind == "dictionary_value":
            for k in value.dictionary_value.data:
                visit(value.dictionary_value.data[k])
    for k in message.data:
        visit(message.data[k])
    return found


def test_the_layout_over_2gb_refuses_other_element_types(monkeypatch):
    monkeypatch.setattr(wire, "INT_MAX", 10)
    with pytest.raises(ValueError, match="float32 and float64 tensors only"):
        wire.dictionary_parts({"v": np.zeros(100, np.float16)})


def test_a_large_tensor_is_read_from_the_file_into_its_array(tmp_path):
    # over 1 MB of values in one packed field: read with preadv at its offset instead of copied through the map
    big = np.random.RandomState(0).standard_normal((700, 600)).astype(np.float32)
    values = {"inputs": [{"value": big}, {"value": np.arange(4.0)}, {"value": big.astype(np.float64)}]}
    data = wire.dictionary_bytes(values)
    path = tmp_path / "m.model"
    path.write_bytes(data)
    got = wire.read_file(str(path), "m")
    _same(got, dictionary_from_message(P.Dictionary.FromString(data)))
    assert got["inputs"][0]["value"].array.tobytes() == big.tobytes()
