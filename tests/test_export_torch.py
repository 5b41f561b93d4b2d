"""python -m cntk_compat.export_torch: the generated file imports torch only and equals the Function's output,
checked in a fresh interpreter in which cntk_compat cannot be imported."""
import os
import subprocess
import sys

import numpy as np
import pytest

import cntk_compat as C
from cntk_compat.layers import LSTM, Dense, Recurrence, Sequential

_CHECK = r'''
import sys
sys.modules["cntk_compat"] = None  # importing it now fails
sys.modules["cntk"] = None
sys.path.insert(0, sys.argv[1])
import numpy as np, torch
from generated import Model
m = Model()
m.load_state_dict(torch.load(sys.argv[2], weights_only=True))
x = torch.from_numpy(np.load(sys.argv[3]))
np.save(sys.argv[4], m(x).detach().numpy())
'''


def test_generated_module_equals_the_function_without_cntk_compat(tmp_path):
    x = C.input_variable(3, name="features")
    model = Sequential([Dense(4, activation=C.relu, name="hidden"), Dense(2, activation=C.softmax, name="out")])(x)
    model_path = str(tmp_path / "m.model")
    model.save(model_path)
    out_py = str(tmp_path / "generated.py")
    env = dict(os.environ)
    subprocess.run([sys.executable, "-m", "cntk_compat.export_torch", model_path, out_py], check=True, env=env,
                   stdout=subprocess.DEVNULL, timeout=300)
    source = open(out_py).read()
    imports = {line.split()[1] for line in source.splitlines() if line.startswith(("import ", "from "))}
    assert imports == {"torch"}
    assert "hidden" in source and "register_parameter('W'" in source
    data = np.random.RandomState(4).uniform(-1, 1, (7, 3)).astype(np.float32)
    np.save(str(tmp_path / "x.npy"), data)
    check = tmp_path / "check.py"
    check.write_text(_CHECK)
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([sys.executable, str(check), str(tmp_path), str(tmp_path / "generated.pt"),
                    str(tmp_path / "x.npy"), str(tmp_path / "y.npy")], check=True, env=clean, cwd=str(tmp_path),
                   timeout=300)
    np.testing.assert_allclose(np.load(str(tmp_path / "y.npy")), model.eval(data), rtol=1e-6, atol=1e-6)


def test_recurrent_models_are_refused_clearly():
    from cntk_compat.export_torch import generate
    s = C.sequence.input_variable(3)
    with pytest.raises(ValueError, match="export_torch"):
        generate(Recurrence(LSTM(2))(s), "m", "m.pt")
