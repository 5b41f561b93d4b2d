"""Session 20 differential sweep, outcomes read from CNTK 2.7: forward() keeping nothing for backward gives no
state (None) and backward(None, ...) is CNTK's ValueError; a model that cannot be read is CNTK's RuntimeError, a
missing file and an empty buffer CNTK's ValueErrors."""
import numpy as np
import pytest

import cntk as C


def test_forward_without_keep_for_backward_gives_no_state():
    x = C.input_variable(2)
    f = C.layers.Dense(2)(x)
    data = {x: np.ones((1, 2), np.float32)}
    state, out = f.forward(data)
    assert state is None
    assert out[f.output].shape == (1, 2)
    with pytest.raises(ValueError, match="did not keep any intermediate results, Please set keep_for_backward"):
        f.backward(state, {f.output: np.ones((1, 2), np.float32)}, set(f.parameters))
    state, _ = f.forward(data, keep_for_backward={f.output})
    assert state is not None
    g = f.backward(state, {f.output: np.ones((1, 2), np.float32)}, set(f.parameters))
    assert sorted(v.name for v in g) == ['W', 'b']


def test_unreadable_models_raise_cntks_types(tmp_path):
    x = C.input_variable(1)
    path = str(tmp_path / "m")
    (x + 1).save(path)
    data = open(path, "rb").read()
    for bad in (data[:len(data) // 2], b"garbage", b"\x08\x01 not a zip archive"):
        with pytest.raises(RuntimeError):
            C.Function.load(bad)
        (tmp_path / "bad").write_bytes(bad)
        with pytest.raises(RuntimeError):
            C.load_model(str(tmp_path / "bad"))
    with pytest.raises(RuntimeError):
        C.load_model(str(tmp_path))   # a directory
    with pytest.raises(ValueError) as e:
        C.load_model(str(tmp_path / "missing"))
    assert str(e.value) == "Cannot load the model %s that is neither a file nor a byte buffer." % (tmp_path / "missing")
    with pytest.raises(ValueError, match="The model buffer should not be null and its length should be greater than 0"):
        C.Function.load(b"")
