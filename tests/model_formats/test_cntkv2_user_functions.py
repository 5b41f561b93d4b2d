"""Python user functions in CNTK's v2 format: written as CNTK 2.7 writes them (a UserDefinedFunction record with
the class's module and name, the op name and the serialize() state), loaded back through the class this program
defined or a registered callback; where real CNTK 2.7 is installed it loads our file and we load its file, with
the same outputs."""
import os
import subprocess

import numpy as np
import pytest

import cntk_compat as C
from cntk_compat.core import registry, serialization
from cntk_compat.model_formats import cntkv2_writer as W
from cntk_compat.model_formats.cntkv2_reader import parse
from cntk_compat.model_formats.cntkv2_values import dictionary_to_message
from cntk_compat.ops.functions import UserFunction

CNTK27 = os.environ.get("CNTK27_PYTHON", "/root/.cache/cntk27/bin/python-cntk27")
X = np.array([[0.1, -0.2, 0.3], [1.5, 0.0, -2.0]], np.float32)
OP_NAME = __name__ + ".ScaledSigmoid"


# One source for the user function, run here and (as CNTK 2.7 code) in the oracle's script.
_CLASS_SOURCE = r'''
class ScaledSigmoid(UserFunction):
    """sigmoid(scale * x) + offset; scale and offset (a vector) are its serialize() state."""

    def __init__(self, arg, name="ScaledSigmoid", scale=2.0, offset=(0.0, 0.0, 0.0)):
        super(ScaledSigmoid, self).__init__([arg], name=name)
        self.scale, self.offset = scale, np.asarray(offset, np.float32)

    def forward(self, argument, device=None, outputs_to_retain=None):
        s = 1 / (1 + np.exp(-argument * self.scale))
        return s, s + self.offset

    def backward(self, state, root_gradients):
        return root_gradients * state * (1 - state) * self.scale

    def infer_outputs(self):
        a = self.inputs[0]
        return [C.output_variable(a.shape, a.dtype, a.dynamic_axes)]

    def serialize(self):
        return {"scale": self.scale, "offset": self.offset, "tags": ["a", 1, 2.5, True], "nested": {"n": 3}}

    @staticmethod
    def deserialize(inputs, name, state):
        assert list(state["tags"]) == ["a", 1, 2.5, True] and dict(state["nested"]) == {"n": 3}, state
        return ScaledSigmoid(inputs[0], name, state["scale"], np.asarray(state["offset"]))
'''
exec(_CLASS_SOURCE)


def _model(scale=3.0):
    x = C.input_variable(3, name="x")
    p = C.parameter((3,), init=np.array([1.0, 2.0, 3.0], np.float32), name="p")
    return C.plus(C.user_function(ScaledSigmoid(x * p, name="sig", scale=scale, offset=(0.5, -1.0, 2.0))), 1.0,
                  name="out")


def _eval(f):
    return f.eval({f.arguments[0]: X})


def _forget_the_class(monkeypatch):
    """The loader does not know ScaledSigmoid (as in a program that never defined it)."""
    monkeypatch.delitem(serialization.user_function_classes, (__name__, "ScaledSigmoid"))


@pytest.fixture
def no_callbacks(monkeypatch):
    monkeypatch.setattr(registry, "_UDF_LOADERS", {})


def test_written_as_cntk_writes_a_user_function(tmp_path, no_callbacks):
    path = str(tmp_path / "m.model")
    _model().save(path)
    with open(path, "rb") as f:
        data = f.read()
    assert data[:1] == b"\x08", "save() must write CNTK's v2 format"
    records = [r for r in parse(data, "m")["primitive_functions"] if r["type"] == "UserDefinedFunction"]
    assert len(records) == 1
    r = records[0]
    # the fields CNTK 2.7 writes for such a function (seen in a model it saved)
    assert sorted(r) == ["inputs", "name", "native", "type", "uid", "user_defined_state", "version"]
    assert r["name"] == "sig" and r["native"] is False and len(r["inputs"]) == 1
    state = r["user_defined_state"]
    assert {k: state[k] for k in ("module", "class", "op_name", "version")} == \
        {"module": __name__, "class": "ScaledSigmoid", "op_name": OP_NAME, "version": 1}
    assert state["state"]["scale"] == 3.0 and state["state"]["tags"] == ["a", 1, 2.5, True]
    np.testing.assert_array_equal(state["state"]["offset"].array, [0.5, -1.0, 2.0])


def test_loads_back_through_the_class_the_program_defined(tmp_path, no_callbacks):
    f = _model()
    path = str(tmp_path / "m.model")
    f.save(path)
    loaded = C.load_model(path)
    np.testing.assert_allclose(_eval(loaded), _eval(f), rtol=1e-6)
    # found as CNTK hands out a user function: a Function whose op_name is 'UserFunction', the user's attributes
    udf = C.logging.graph.depth_first_search(loaded, lambda g: getattr(g, "op_name", None) == "UserFunction")
    assert len(udf) == 1 and udf[0].scale == 3.0 and udf[0].name == "sig"
    assert udf[0].serialize()["class"] == "ScaledSigmoid"
    # gradients flow through the loaded user function's backward
    p = [q for q in loaded.parameters if q.name == "p"][0]
    grads = loaded.grad({loaded.arguments[0]: X}, wrt=[p])
    np.testing.assert_allclose(grads, f.grad({f.arguments[0]: X}, wrt=[f.parameters[0]]), rtol=1e-5)


def test_loads_back_through_a_registered_callback(tmp_path, no_callbacks, monkeypatch):
    f = _model()
    path = str(tmp_path / "m.model")
    f.save(path)
    _forget_the_class(monkeypatch)
    calls = []

    def rebuild(inputs, name, state):
        calls.append((name, state["scale"]))
        return ScaledSigmoid(inputs[0], name, state["scale"] * 2, state["offset"])

    C.Function.register_udf_deserialize_callback(OP_NAME, rebuild)
    loaded = C.load_model(path)
    assert calls == [("sig", 3.0)]
    np.testing.assert_allclose(_eval(loaded), _eval(_model(scale=6.0)), rtol=1e-6)


def test_without_the_class_the_error_names_it(tmp_path, no_callbacks, monkeypatch):
    path = str(tmp_path / "m.model")
    _model().save(path)
    _forget_the_class(monkeypatch)
    with pytest.raises(ValueError, match=r"function \S+: .*user function %s\.ScaledSigmoid.*imports nothing that "
                                         r"the file names.*register_udf_deserialize_callback" % __name__):
        C.load_model(path)


def test_a_state_cntk_cannot_store_keeps_the_archive_format(tmp_path):
    class Opaque(ScaledSigmoid):
        def serialize(self):
            return {"scale": self.scale, "offset": self.offset, "by_id": {1: 2.0}}  # CNTK's keys are strings

    x = C.input_variable(3)
    f = C.user_function(Opaque(x))
    with pytest.raises(W.NotExpressible, match="serialize.*key that is not a string"):
        W.model_bytes(f)
    path = str(tmp_path / "m.model")
    f.save(path)
    with open(path, "rb") as fh:
        assert fh.read(2) == b"PK"  # this package's archive


_ORACLE_CLASS = r'''
import sys, os, numpy as np
import cntk as C
from cntk.ops.functions import UserFunction
''' + _CLASS_SOURCE

_ORACLE = _ORACLE_CLASS + r'''

folder = sys.argv[1]
x_value = np.load(os.path.join(folder, "x.npy"))
# our file names the class by the test module, which this process cannot import: CNTK's callback for its op name
C.Function.register_udf_deserialize_callback(sys.argv[2], ScaledSigmoid.deserialize)
m = C.load_model(os.path.join(folder, "ours.model"))
np.save(os.path.join(folder, "ours_in_cntk.npy"), m.eval({m.arguments[0]: x_value}))
# CNTK's own file of the same model
x = C.input_variable(3, name="x")
p = C.parameter((3,), init=np.array([1.0, 2.0, 3.0], np.float32), name="p")
f = C.plus(C.user_function(ScaledSigmoid(x * p, name="sig", scale=3.0, offset=(0.5, -1.0, 2.0))), 1.0, name="out")
f.save(os.path.join(folder, "cntk.model"))
np.save(os.path.join(folder, "cntk_out.npy"), f.eval({x: x_value}))
'''


@pytest.mark.skipif(not os.path.exists(CNTK27), reason="real CNTK 2.7 (the oracle) is not installed")
def test_cntk27_loads_ours_and_we_load_cntks(tmp_path, no_callbacks):
    folder = tmp_path / "files"
    folder.mkdir()
    np.save(str(folder / "x.npy"), X)
    f = _model()
    f.save(str(folder / "ours.model"))
    script = tmp_path / "oracle.py"
    script.write_text(_ORACLE)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([CNTK27, str(script), str(folder), OP_NAME], cwd=str(tmp_path), env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300)
    ours = _eval(f)
    np.testing.assert_allclose(np.load(str(folder / "ours_in_cntk.npy")), ours, rtol=1e-5)
    np.testing.assert_allclose(np.load(str(folder / "cntk_out.npy")), ours, rtol=1e-5)
    # CNTK's file names the class as __main__.ScaledSigmoid: loading it here needs a callback for that op name
    with pytest.raises(ValueError, match=r"__main__\.ScaledSigmoid.*imports nothing"):
        C.load_model(str(folder / "cntk.model"))
    C.Function.register_udf_deserialize_callback("__main__.ScaledSigmoid", ScaledSigmoid.deserialize)
    loaded = C.load_model(str(folder / "cntk.model"))
    np.testing.assert_allclose(_eval(loaded), ours, rtol=1e-5)
