"""cntk._to_cntk_dict_value and cntk_py.DictionaryValue: saved as CNTK 2.7 saves them (bytes from running it),
and kept in Function.custom_attributes through a saved model."""
import numpy as np
import pytest

import cntk as C

INT8_BYTES = bytes.fromhex("0802100b6a4c08051a040a02041032420a40" + "".join("%02x" % i for i in range(64)))
INT16_BYTES = bytes.fromhex("0802100b6a4c08061a040a0204103a420a40" + "".join("%02x" % (2 * i) for i in range(64)))


@pytest.mark.parametrize("dtype, expected", [(np.int8, INT8_BYTES), (np.int16, INT16_BYTES)])
def test_integer_tensors_save_as_cntk_does(tmp_path, dtype, expected):
    data = np.arange(0, 64, dtype=dtype).reshape(16, 4)
    value = C._to_cntk_dict_value(data)
    assert isinstance(value, C.cntk_py.DictionaryValue) and value.value_type() == 11
    path = str(tmp_path / "v.bin")
    value.save(path)
    with open(path, "rb") as f:
        assert f.read() == expected
    loaded = value.load(path)
    assert loaded == value and loaded != C._to_cntk_dict_value(data.reshape(4, 16))


@pytest.mark.parametrize("value, code, hex_bytes", [
    (1, 2, "080210022001"),
    (2.5, 5, "08021005390000000000000440"),
    ([1, 2], 9, "080210095a100a060802100220010a06080210022002"),
    ({"a": 1}, 10, "0802100a620f0802120b0a01611206080210022001"),
    (np.arange(3, dtype=np.float32), 11, "0802100b6a1708011a030a0103220e0a0c000000000000803f00000040"),
    (np.arange(4, dtype=np.float16).reshape(2, 2), 11,
     "0802100b6a1c08041a040a02020222120a10000000000000803f0000004000004040"),
])
def test_other_values_save_as_cntk_does(tmp_path, value, code, hex_bytes):
    v = C._to_cntk_dict_value(value)
    assert v.value_type() == code
    path = str(tmp_path / "v.bin")
    v.save(path)
    with open(path, "rb") as f:
        assert f.read().hex() == hex_bytes
    assert C.cntk_py.DictionaryValue.load(path) == v


def test_only_cntks_tensor_types_are_taken():
    with pytest.raises(RuntimeError, match="int8, int16, float16, float32 or float64 expected"):
        C._to_cntk_dict_value(np.arange(3, dtype=np.int32))
    with pytest.raises(RuntimeError, match="Cannot open file"):
        C.cntk_py.DictionaryValue.load("/nonexistent/value.bin")


def test_custom_attributes_keep_integer_tensors_through_a_saved_model(tmp_path):
    data = np.arange(0, 64, dtype=np.int8).reshape(16, 4)
    w = C.Parameter((C.InferredDimension, 42), init=C.glorot_uniform(), dtype=np.float64)
    x = C.input_variable(12, dtype=np.float64)
    y = C.times(x, w)
    y.custom_attributes = {"int8_nd": C._to_cntk_dict_value(data), "int16": np.arange(3, dtype=np.int16), "f": 1.5}
    path = str(tmp_path / "m.model")
    y.save(path)
    with open(path, "rb") as f:
        assert f.read(1) == b"\x08"  # CNTK's v2 format
    attrs = C.load_model(path).custom_attributes
    assert attrs["int8_nd"].dtype == np.int8 and np.array_equal(attrs["int8_nd"], data)
    assert attrs["int16"].dtype == np.int16 and attrs["int16"].tolist() == [0, 1, 2] and attrs["f"] == 1.5
