"""python -m cntk_compat.export_torch: the generated file imports torch only and equals the Function's output,
checked in a fresh interpreter in which cntk_compat cannot be imported."""
import os
import subprocess
import sys

import numpy as np
import pytest

import cntk_compat as C
from cntk_compat.layers import LSTM, Dense, Recurrence, RNNStep, Sequential
from tests._tolerance import float32_tolerance

_CHECK = r'''
import sys
sys.modules["cntk_compat"] = None  # importing it now fails
sys.modules["cntk"] = None
sys.path.insert(0, sys.argv[1])
import numpy as np, torch
from generated import Model
m = Model()
m.load_state_dict(torch.load(sys.argv[2], weights_only=True))
for k in range(3, len(sys.argv), 2):
    x = torch.from_numpy(np.load(sys.argv[k]))
    np.save(sys.argv[k + 1], m(x).detach().numpy())
'''


def _export(model, tmp_path):
    model_path = str(tmp_path / "m.model")
    model.save(model_path)
    out_py = str(tmp_path / "generated.py")
    subprocess.run([sys.executable, "-m", "cntk_compat.export_torch", model_path, out_py], check=True,
                   env=dict(os.environ), stdout=subprocess.DEVNULL, timeout=300)
    return open(out_py).read()


def _run_without_cntk_compat(tmp_path, inputs):
    """The generated module's outputs for each input array, computed where cntk_compat cannot be imported."""
    check = tmp_path / "check.py"
    check.write_text(_CHECK)
    args = []
    for k, data in enumerate(inputs):
        np.save(str(tmp_path / ("x%d.npy" % k)), data)
        args += [str(tmp_path / ("x%d.npy" % k)), str(tmp_path / ("y%d.npy" % k))]
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([sys.executable, str(check), str(tmp_path), str(tmp_path / "generated.pt")] + args, check=True,
                   env=clean, cwd=str(tmp_path), timeout=300)
    return [np.load(str(tmp_path / ("y%d.npy" % k))) for k in range(len(inputs))]


def test_generated_module_equals_the_function_without_cntk_compat(tmp_path):
    x = C.input_variable(3, name="features")
    model = Sequential([Dense(4, activation=C.relu, name="hidden"), Dense(2, activation=C.softmax, name="out")])(x)
    source = _export(model, tmp_path)
    imports = {line.split()[1] for line in source.splitlines() if line.startswith(("import ", "from "))}
    assert imports == {"torch"}
    assert "hidden" in source and "register_parameter('W'" in source
    data = np.random.RandomState(4).uniform(-1, 1, (7, 3)).astype(np.float32)
    (got,) = _run_without_cntk_compat(tmp_path, [data])
    np.testing.assert_allclose(got, model.eval(data), rtol=1e-6, atol=1e-6)


def test_lstm_model_exports_for_every_sequence_length_without_cntk_compat(tmp_path):
    s = C.sequence.input_variable(3, name="x")
    h = Recurrence(LSTM(4, init=C.glorot_uniform(seed=1)))(s)
    h = Recurrence(LSTM(3, init=C.glorot_uniform(seed=2)), go_backwards=True)(h)
    h = Recurrence(RNNStep(3, activation=C.tanh, init=C.glorot_uniform(seed=4)))(h)
    model = Dense(2, init=C.glorot_uniform(seed=3))(h)
    source = _export(model, tmp_path)
    assert "torch.lstm(" in source and "torch.rnn_tanh(" in source and "cntk" not in source.replace("cntk_compat.export_torch", "")
    rng = np.random.RandomState(5)
    inputs = [rng.uniform(-1, 1, (2, t, 3)).astype(np.float32) for t in (1, 2, 5, 11)]
    for data, got in zip(inputs, _run_without_cntk_compat(tmp_path, inputs)):
        np.testing.assert_allclose(got, model.eval({s: data}), rtol=float32_tolerance(1e-5), atol=float32_tolerance(1e-6))


def test_recurrences_run_step_by_step_are_refused_clearly():
    from cntk_compat.export_torch import generate
    s = C.sequence.input_variable(3)
    with pytest.raises(ValueError, match="export_torch.*others run step by step"):
        generate(Recurrence(RNNStep(2, activation=C.sigmoid))(s), "m", "m.pt")


def test_a_cpu_copy_of_a_lowered_module_keeps_the_lowerings_attributes_and_values():
    """Export traces a copy on the CPU when the model lives on a GPU; the copy must still say what it needs."""
    import torch
    from cntk_compat.model_formats.exportable import cpu_copy
    s = C.sequence.input_variable(3, name="x")
    model = Dense(2, init=C.glorot_uniform(seed=3))(Recurrence(LSTM(4, init=C.glorot_uniform(seed=1)))(s))
    module = model.torch_module(list(model.arguments))
    twin = cpu_copy(module)
    assert twin is not module and (twin.mask_axes, twin.made_mask_axes) == (module.mask_axes, module.made_mask_axes)
    x = torch.randn(2, 5, 3, device=next(module.parameters()).device)
    mask = torch.ones(2, 5, dtype=torch.bool, device=x.device)
    np.testing.assert_allclose(twin(x.cpu(), mask.cpu())[0].detach().numpy(), module(x, mask)[0].detach().cpu().numpy(),
                               rtol=1e-5, atol=1e-6)
