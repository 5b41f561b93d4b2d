"""`import cntk` is cntk_compat: same module objects, one copy of all state."""
import importlib
import json
import os
import subprocess
import sys
import types

import numpy
import pytest

import cntk
import cntk_compat


def test_cntk_is_cntk_compat():
    assert cntk is cntk_compat


def test_submodules_are_the_same_objects():
    for name in ("ops", "layers", "device", "axis", "variables", "sequence", "internal", "cntk_py",
                 "ops.functions", "layers.typing", "tests.test_utils"):
        alias = importlib.import_module("cntk." + name)
        real = importlib.import_module("cntk_compat." + name)
        assert alias is real, name


def test_from_import_forms_share_state():
    from cntk.ops import plus as p1
    from cntk_compat.ops import plus as p2
    import cntk.layers.typing as t1
    assert p1 is p2 and t1 is cntk_compat.layers.typing


def test_alias_in_fresh_interpreter_imports_submodule_first():
    code = ("import cntk.ops.functions as f, cntk_compat, sys; "
            "assert sys.modules['cntk'] is cntk_compat; assert f is cntk_compat.ops.functions; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"


def test_unknown_submodule_is_an_import_error():
    import pytest
    with pytest.raises(ImportError):
        importlib.import_module("cntk.no_such_module")


def test_top_level_cntk_py_is_cntk_cntk_py():
    # CNTK's ATIS and CMUDict examples write `from _cntk_py import set_fixed_random_seed`
    import _cntk_py
    from _cntk_py import force_deterministic_algorithms, set_fixed_random_seed
    assert _cntk_py is cntk.cntk_py
    assert set_fixed_random_seed is cntk.cntk_py.set_fixed_random_seed
    assert force_deterministic_algorithms is cntk.cntk_py.force_deterministic_algorithms


def test_layers_star_import_gives_the_sequence_ops_as_in_cntk():
    # CNTK's examples do `from cntk import sequence` then `from cntk.layers import *` and call sequence.slice
    namespace = {}
    exec("from cntk import sequence\nfrom cntk.layers import *\nfrom cntk.layers.sequence import *", namespace)
    assert namespace["sequence"] is cntk.ops.sequence
    assert namespace["Recurrence"] is cntk_compat.layers.Recurrence


# CNTK 2.7's sub-modules that each public module binds: the only modules an __all__ may name besides
# CNTK's public names (`from cntk.X import *` gave them under CNTK too)
CNTK_SUBMODULES = {
    "cntk": {"axis", "core", "debugging", "device", "eval", "initializer", "internal", "io", "layers", "learners",
             "sequence", "trainer", "functions", "evaluator",  # cntk.ops.sequence, cntk.train.trainer, ...
             "logging", "losses", "metrics", "misc", "ops", "random", "sample_installer", "tensor", "train",
             "variables"},
    "cntk.ops": {"functions", "sequence"}, "cntk.debugging": {"debug", "profiler"}, "cntk.io": {"transforms"},
    "cntk.layers": {"blocks", "higher_order_layers", "layers", "models", "sequence", "typing", "attention"},
    "cntk.layers.models": {"attention"}, "cntk.layers.sequence": {"sequence"}, "cntk.eval": {"evaluator"},
    "cntk.internal": {"sanitize", "swig_helper", "utils"}, "cntk.logging": {"graph", "progress_print"},
    "cntk.misc": {"converter", "optimized_rnnstack_converter"}, "cntk.train": {"trainer"},
}

# CNTK 2.7's public names per public module, as api_census reads them from the CNTK 2.7 wheel: the names a
# module defines or imports, its re-exports of other cntk objects included (CNTK 2.7 defines no __all__, so
# `from cntk.X import *` gave all of them)
with open(os.path.join(os.path.dirname(__file__), "cntk27_public_names.json")) as _f:
    CNTK27_PUBLIC_NAMES = json.load(_f)

from cntk_compat._incidental_names import NAMES as INCIDENTAL_NAMES  # noqa: E402


def test_star_imports_bind_what_cntk27s_modules_bind_by_importing():
    # CNTK 2.7's modules have no __all__: `from cntk.layers import *` binds numpy as np, which
    # Examples/LanguageUnderstanding/ATIS/Python/LanguageUnderstanding.py uses without importing it
    import numpy
    import scipy.sparse
    import uuid
    for name, names in sorted(INCIDENTAL_NAMES.items()):
        module = importlib.import_module(name)
        star = {}
        exec("from %s import *" % name, star)
        for alias in names.split():
            if not alias.startswith("_"):
                assert star[alias] is getattr(module, alias), (name, alias)
    star = {}
    exec("from cntk.layers import *", star)
    assert star["np"] is numpy
    star = {}
    exec("from cntk import *", star)
    assert star["sparse"] is scipy.sparse and star["np"] is numpy
    star = {}
    exec("from cntk.io import *", star)
    assert star["uuid"] is uuid
    star = {}
    exec("from cntk.tensor import *", star)
    assert star["sparse"] is scipy.sparse and "warnings" in star


@pytest.mark.parametrize("name", sorted(CNTK27_PUBLIC_NAMES))
def test_all_of_every_public_module_is_cntk27s_public_names(name):
    module = importlib.import_module(name)
    assert "__all__" in vars(module), name
    declared = set(module.__all__)
    assert len(declared) == len(module.__all__), "duplicates in %s.__all__" % name
    expected = set(CNTK27_PUBLIC_NAMES[name])
    assert sorted(expected - declared) == []
    incidental = set(INCIDENTAL_NAMES.get(name, "").split())
    assert sorted(declared - expected - CNTK_SUBMODULES.get(name, set()) - incidental) == []
    assert [n for n in declared if not hasattr(module, n)] == []


def test_names_cntk_never_had_stay_out_of_import_star():
    for module, name in [("cntk.learners", "default_use_mean_gradient_value"),
                         ("cntk.learners", "set_default_use_mean_gradient_value"),
                         ("cntk.logging", "ProgressWriter"), ("cntk.variables", "VariableKind"),
                         ("cntk.ops.functions", "allow_user_function_imports")]:
        star = {}
        exec("from %s import *" % module, star)
        assert name not in star, (module, name)
    star = {}
    exec("from cntk.losses import *", star)  # CNTK's incidental re-exports come along, as under CNTK
    assert star["Function"] is cntk.Function and star["times"] is cntk.times


def test_import_star_hands_on_what_cntk27s_modules_bind_by_importing():
    star = {}
    exec("from cntk import *", star)
    assert star["C"] is cntk and star["distributed"] is cntk.distributed
    assert star["typemap"] is cntk.internal.swig_helper.typemap and star["sanitize_input"] is cntk.internal.sanitize_input
    assert (star["PoolingType_Max"], star["PoolingType_Average"]) == (0, 1)
    star = {}
    exec("from cntk.ops import *", star)
    assert star["sanitize_axis"] is cntk.internal.sanitize.sanitize_axis and star["cntk_py"] is cntk.cntk_py
    star = {}
    exec("from cntk.layers.blocks import *", star)
    assert star["np"] is numpy and star["InferredDimension"] is cntk.InferredDimension
    assert cntk.contrib.deeprl.agent.shared.cntk_utils.C is cntk.ops


@pytest.mark.parametrize("name", sorted(CNTK_SUBMODULES))
def test_public_packages_export_cntk_names_and_no_helper_modules(name):
    module = importlib.import_module(name)
    assert "__all__" in vars(module)
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert missing == []
    modules = {n for n in module.__all__ if isinstance(getattr(module, n), types.ModuleType)}
    modules -= set(INCIDENTAL_NAMES.get(name, "").split())   # C, cntk_py, sys, ... (bound by CNTK's imports)
    assert modules <= CNTK_SUBMODULES[name], sorted(modules - CNTK_SUBMODULES[name])
    star = {}
    exec("from %s import *" % name, star)
    assert "elementwise" not in star and "shaping" not in star


def test_star_import_of_cntk_shadows_pythons_random_and_names_cntk_random_in_the_error():
    # CNTK_203 imports Python's random, then `from cntk import *`, then calls random.random(): under CNTK 2.7
    # that raises AttributeError "module 'cntk.random' has no attribute 'random'" (cntk.random has no
    # helper named like random_op either, which Python would offer as a suggestion)
    star = {}
    exec("import random\nfrom cntk import *", star)
    assert star["random"] is cntk.random
    with pytest.raises(AttributeError) as info:
        star["random"].random()
    assert str(info.value) == "module 'cntk.random' has no attribute 'random'"
    # (sanitize_random_args: CNTK's sanitizer, which CNTK's cntk.random binds too)
    assert [n for n in dir(cntk.random) if "random" in n and not n.startswith("_")] == ["sanitize_random_args"]


def test_missing_attributes_of_cntk_modules_are_reported_under_their_cntk_names():
    # CNTK_206 (an early version of CNTK_207) calls C.init_bias_default_or_0, which CNTK 2.7 no longer has:
    # "module 'cntk' has no attribute 'init_bias_default_or_0'"
    import cntk.layers
    import cntk.ops.functions
    for module, public in [(cntk, "cntk"), (cntk.layers, "cntk.layers"), (cntk.ops.functions, "cntk.ops.functions")]:
        with pytest.raises(AttributeError) as info:
            getattr(module, "init_bias_default_or_0")
        assert str(info.value) == "module '%s' has no attribute 'init_bias_default_or_0'" % public
        assert getattr(module, "init_bias_default_or_0", None) is None
    assert hasattr(cntk.layers, "Dense")
    # CNTK 2.0's cntk.utils module is gone in both (cntk.utils is CNTK 2.7's cntk.internal.utils, not a module path)
    assert cntk.utils is cntk.internal.utils
    with pytest.raises(ModuleNotFoundError, match="No module named 'cntk.utils'"):
        importlib.import_module("cntk.utils")


def test_import_cntk_leaves_torchvision_unimported():
    # torchvision takes about as long to import as torch; only roipooling needs it, when it computes
    code = "import sys, cntk; print('torchvision' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert out.stdout.strip().splitlines()[-1] == "False"
