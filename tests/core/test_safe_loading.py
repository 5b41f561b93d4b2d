"""Loading a model imports nothing that the file names, unless the user allowed it."""
import json
import sys
import zipfile

import numpy as np
import pytest

import cntk as C
from cntk.ops.functions import UserFunction
from cntk_compat.core import serialization

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


def _model_naming(module, tmp_path):
    """A saved model whose user function record names ``module``."""
    x = C.input_variable(2, name="x")
    path = str(tmp_path / "m.model")
    C.user_function(Twice(x)).save(path)
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


def test_a_module_named_in_the_file_is_not_imported_unless_allowed(tmp_path, monkeypatch):
    marker = tmp_path / "marker"
    (tmp_path / "udf_side_effect_mod.py").write_text(MODULE % str(marker))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(serialization, "_importable_modules", set())
    path = _model_naming("udf_side_effect_mod", tmp_path)
    with pytest.raises(ValueError, match=r"udf_side_effect_mod\.Twice.*imports nothing that the file names.*"
                                         r"allow_user_function_imports\('udf_side_effect_mod'\)"):
        C.load_model(path)
    assert not marker.exists() and "udf_side_effect_mod" not in sys.modules
    C.ops.functions.allow_user_function_imports("udf_side_effect_mod")
    loaded = C.load_model(path)
    assert marker.exists()
    np.testing.assert_array_equal(loaded.eval({loaded.arguments[0]: np.ones((1, 2), np.float32)}), [[2, 2]])
    sys.modules.pop("udf_side_effect_mod", None)


def test_a_class_the_program_defined_loads_without_any_import(tmp_path):
    x = C.input_variable(2, name="x")
    path = str(tmp_path / "m.model")
    C.user_function(Twice(x)).save(path)
    loaded = C.load_model(path)
    np.testing.assert_array_equal(loaded.eval({loaded.arguments[0]: np.ones((1, 2), np.float32)}), [[2, 2]])
