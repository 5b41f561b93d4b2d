"""custom_proxy_op and int8/int16 Parameters, as CNTK 2.7 has them (expected values from running it)."""
import os
import subprocess

import numpy as np
import pytest

import cntk as C

CNTK27 = os.environ.get("CNTK27_PYTHON", "/root/.cache/cntk27/bin/python-cntk27")


def _proxy():
    w1 = C.Parameter((1, 42), dtype=np.int8)
    w1.value = np.arange(42).reshape(1, 42)
    w2 = C.Parameter((1, 42), dtype=np.int16)
    w3 = C.Parameter((1, 42), dtype=np.float64)
    x = C.input_variable((1, 42), dtype=np.float64)
    return C.custom_proxy_op("times", (21, 2), np.int8, x, w1, w2, w3, name="custom_proxy"), w1


def test_int8_and_int16_parameters_hold_integers():
    w = C.Parameter((1, 4), dtype=np.int8)
    assert w.dtype == np.int8 and w.value.dtype == np.int8 and w.value.tolist() == [[0, 0, 0, 0]]
    w.value = np.array([[1, 2, 3, 300]])  # cast to the parameter's type, as CNTK does
    assert w.value.dtype == np.int8 and w.value[0, :3].tolist() == [1, 2, 3]
    assert C.parameter((2,), dtype=np.int16, init=3).value.tolist() == [3, 3]
    assert C.input_variable(3, dtype=np.int8).dtype == np.int8
    with pytest.raises(ValueError, match="random initializers fill float tensors only"):
        C.parameter((2, 3), dtype=np.int8, init=C.glorot_uniform()).value


def test_custom_proxy_op_records_the_op_and_cannot_be_evaluated():
    z, _ = _proxy()
    assert z.root_function.op_name == "CustomProxyOp"
    assert z.output.shape == (21, 2) and z.output.dtype == np.int8
    assert z.output.dynamic_axes == (C.Axis.default_batch_axis(),)
    assert z.root_function.attributes == {"customOp": "times", "outputShape": (21, 2), "newDataType": 5}
    assert [p.dtype for p in z.parameters] == [np.int8, np.int16, np.float64]
    assert len(C.custom_proxy_op("foo", (3,), np.float32, [C.input_variable(2), C.parameter(2)]).inputs) == 2
    with pytest.raises(RuntimeError, match="cannot be evaluated"):
        z.eval({z.arguments[0]: np.ones((1, 1, 42))})


def test_custom_proxy_op_saves_and_loads_with_its_integer_parameters(tmp_path):
    z, w1 = _proxy()
    path = str(tmp_path / "proxy.model")
    z.save(path)
    with open(path, "rb") as f:
        assert f.read(1) == b"\x08"  # CNTK's v2 format
    loaded = C.load_model(path)
    assert loaded.root_function.op_name == "CustomProxyOp" and loaded.output.shape == (21, 2)
    assert loaded.output.dtype == np.int8
    assert [(p.shape, p.dtype) for p in loaded.parameters] == [((1, 42), np.int8), ((1, 42), np.int16),
                                                                ((1, 42), np.float64)]
    np.testing.assert_array_equal(loaded.parameters[0].value, w1.value)


@pytest.mark.skipif(not os.path.exists(CNTK27), reason="real CNTK 2.7 (the oracle) is not installed")
def test_cntk27_loads_the_saved_proxy(tmp_path):
    z, _ = _proxy()
    path = str(tmp_path / "proxy.model")
    z.save(path)
    script = ("import cntk as C, sys\nm = C.load_model(sys.argv[1])\n"
              "print(m.root_function.op_name, m.output.shape, m.output.dtype.__name__, "
              "[p.value.dtype.name for p in m.parameters], m.parameters[0].value[0, :4].tolist())\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([CNTK27, "-c", script, path], cwd=str(tmp_path), env=env, check=True, timeout=300,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode().strip().splitlines()[-1]
    assert out == "CustomProxyOp (21, 2) int8 ['int8', 'int16', 'float64'] [0, 1, 2, 3]"
