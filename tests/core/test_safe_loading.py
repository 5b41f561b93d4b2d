"""Loading a model imports nothing that the file names, unless the user allowed it."""
import json
import sys
import zipfile

import numpy as np
import pytest

import cntk as C
from cntk.ops.functions import UserFunction
from cntk_compat.core import serialization
from cntk_compat.model_formats import cntkv2_writer
from cntk_compat.model_formats.cntkv2_values import dictionary_to_message

MODULE = '''
import cntk as C
from cntk.ops.functions import UserFunction
open(%r, "w").write("imported")


class Twice(UserFunction):
    def __init__(self, arg, name="twice"):
        super(Twice, self).__init__([arg], name=name)

    def infer_outputs(self):
        x = self.inputs[0]
        return [C.output_variable(x.shape, x.dtype, x.dynamic_axes)]

    def forward(self, argument, device=None, outputs_to_retain=None):
        return None, argument * 2

    def backward(self, state, root_gradients):
        return root_gradients * 2

    def serialize(self):
        return {}

    @staticmethod
    def deserialize(inputs, name, state):
        return Twice(inputs[0], name)
'''


class Twice(UserFunction):
    def __init__(self, arg, name="twice"):
        super(Twice, self).__init__([arg], name=name)

    def infer_outputs(self):
        x = self.inputs[0]
        return [C.output_variable(x.shape, x.dtype, x.dynamic_axes)]

    def forward(self, argument, device=None, outputs_to_retain=None):
        return None, argument * 2

    def backward(self, state, root_gradients):
        return root_gradients * 2

    def serialize(self):
        return {}

    @staticmethod
    def deserialize(inputs, name, state):
        return Twice(inputs[0], name)


def _model_naming(module, tmp_path, cntk_format=False):
    """A saved model whose user function record names ``module``: this package's archive, or CNTK's v2 format
    (what save() writes by default)."""
    x = C.input_variable(2, name="x")
    path = str(tmp_path / "m.model")
    f = C.user_function(Twice(x))
    if cntk_format:
        top = cntkv2_writer.model_dictionary(f)
        for record in top["primitive_functions"]:
            if record["type"] == "UserDefinedFunction":
                record["user_defined_state"]["module"] = module
                record["user_defined_state"]["op_name"] = module + ".Twice"
        with open(path, "wb") as out:
            out.write(dictionary_to_message(top).SerializeToString())
        return path
    with open(path, "wb") as out:
        out.write(serialization.model_bytes(f))
    with zipfile.ZipFile(path) as archive:
        entries = {n: archive.read(n) for n in archive.namelist()}
    graph = json.loads(entries["graph.json"])
    for node in graph["nodes"]:
        if "op_state" in node:
            node["op_state"]["module"] = module
    entries["graph.json"] = json.dumps(graph).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return path


@pytest.mark.parametrize("cntk_format", [False, True], ids=["archive", "cntk_v2"])
def test_a_module_named_in_the_file_is_not_imported_unless_allowed(tmp_path, monkeypatch, cntk_format):
    module = "udf_side_effect_mod_%s" % ("v2" if cntk_format else "archive")  # each run defines its own class
    marker = tmp_path / "marker"
    (tmp_path / (module + ".py")).write_text(MODULE % str(marker))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(serialization, "_importable_modules", set())
    path = _model_naming(module, tmp_path, cntk_format)
    with open(path, "rb") as f:
        assert f.read(2) == (b"\x08\x02" if cntk_format else b"PK")  # version 2, as CNTK 2.7 writes
    with pytest.raises(ValueError, match=r"%s\.Twice.*imports nothing that the file names.*"
                                         r"allow_user_function_imports\('%s'\)" % (module, module)):
        C.load_model(path)
    assert not marker.exists() and module not in sys.modules
    C.ops.functions.allow_user_function_imports(module)
    try:
        loaded = C.load_model(path)
        assert marker.exists()
        np.testing.assert_array_equal(loaded.eval({loaded.arguments[0]: np.ones((1, 2), np.float32)}), [[2, 2]])
    finally:
        sys.modules.pop(module, None)
        serialization.user_function_classes.pop((module, "Twice"), None)


def test_a_class_the_program_defined_loads_without_any_import(tmp_path):
    x = C.input_variable(2, name="x")
    path = str(tmp_path / "m.model")
    C.user_function(Twice(x)).save(path)  # CNTK's v2 format
    with open(path, "rb") as f:
        assert f.read(2) == b"\x08\x02"  # version 2, as CNTK 2.7 writes
    loaded = C.load_model(path)
    np.testing.assert_array_equal(loaded.eval({loaded.arguments[0]: np.ones((1, 2), np.float32)}), [[2, 2]])
