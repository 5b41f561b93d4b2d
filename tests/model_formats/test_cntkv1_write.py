"""Writing CNTK's legacy v1 format (save_as_legacy_model): written models load back here with the same outputs and,
where real CNTK 2.7 is installed (CNTK27_PYTHON), load in CNTK 2.7 and compute the same."""
import os
import subprocess

import numpy as np
import pytest

import cntk_compat as C
from cntk_compat.debugging import save_as_legacy_model
from cntk_compat.layers import LSTM, Dense, Recurrence
from cntk_compat.model_formats import cntkv1_writer

CNTK27 = os.environ.get("CNTK27_PYTHON", "/root/.cache/cntk27/bin/python-cntk27")
RNG = np.random.RandomState(3)
SEQS = [RNG.uniform(-1, 1, (4, 3)).astype(np.float32), RNG.uniform(-1, 1, (2, 3)).astype(np.float32)]


def _cases():
    def x():
        return C.sequence.input_variable(3, name="x")
    return {
        "dense": lambda: Dense(2, activation=C.relu, init=C.glorot_uniform(seed=1))(x()),
        "lstm": lambda: Dense(2, init=C.glorot_uniform(seed=2))(Recurrence(LSTM(4, init=C.glorot_uniform(seed=3)))(x())),
        "softmax_of_times": lambda: C.softmax(C.times(x(), C.Constant(RNG.uniform(-1, 1, (3, 5)).astype(np.float32)))),
        "elementwise": lambda: _elementwise(x()),
        "future_value": lambda: _delays(x()),
    }


def _elementwise(x):
    return C.element_select(C.greater(x, 0), C.exp(x) * 2, C.tanh(x) - C.abs(x))


def _delays(x):
    return C.sequence.future_value(x, 0.5) + C.sequence.past_value(x, time_step=2)


CASES = _cases()


def _eval(model):
    return model.eval({model.arguments[0]: SEQS})


@pytest.mark.parametrize("name", sorted(CASES))
def test_written_v1_model_loads_back_with_the_same_outputs(name, tmp_path):
    model = CASES[name]()
    path = str(tmp_path / "m.dnn")
    save_as_legacy_model(model, path)
    loaded = C.load_model(path)
    # v1 node names are unique: a repeated name (two layers' W) is written as the node's uid
    assert sorted(p.shape for p in loaded.parameters) == sorted(p.shape for p in model.parameters)
    for a, b in zip(_eval(loaded), _eval(model)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_ops_without_a_v1_node_type_are_named():
    s = C.sequence.input_variable(2)
    with pytest.raises(ValueError, match="Convolution.*no v1 node type"):
        cntkv1_writer.model_bytes(C.convolution(C.Parameter((1, 1, 1)), C.input_variable((1, 2))))
    with pytest.raises(ValueError, match="initial state other than a scalar constant"):
        cntkv1_writer.model_bytes(C.sequence.past_value(s, C.Constant(np.ones(2, np.float32))))


_ORACLE = r'''
import sys, os, numpy as np
import cntk as C
folder = sys.argv[1]
seqs = [np.load(os.path.join(folder, "s%d.npy" % i)) for i in range(2)]
for name in sorted(os.listdir(folder)):
    if name.endswith(".dnn"):
        m = C.load_model(os.path.join(folder, name))
        for i, r in enumerate(m.eval({m.arguments[0]: seqs})):
            np.save(os.path.join(folder, "%s.out%d.npy" % (name[:-4], i)), r)
'''


@pytest.mark.skipif(not os.path.exists(CNTK27), reason="real CNTK 2.7 (the oracle) is not installed")
def test_cntk27_loads_written_v1_models_and_computes_the_same(tmp_path):
    for i, s in enumerate(SEQS):
        np.save(str(tmp_path / ("s%d.npy" % i)), s)
    expected = {}
    for name, build in CASES.items():
        model = build()
        save_as_legacy_model(model, str(tmp_path / (name + ".dnn")))
        expected[name] = _eval(model)
    script = tmp_path / "oracle.py"
    script.write_text(_ORACLE)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([CNTK27, str(script), str(tmp_path)], cwd=str(tmp_path), env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    for name, ours in expected.items():
        for i, a in enumerate(ours):
            theirs = np.load(str(tmp_path / ("%s.out%d.npy" % (name, i))))
            np.testing.assert_allclose(theirs.reshape(a.shape), a, rtol=1e-5, atol=1e-5, err_msg=name)
