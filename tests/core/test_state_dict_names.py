"""torch_module().state_dict() keys come from the CNTK names and are the same in every process."""
import os
import subprocess
import sys

import numpy as np
import torch

import cntk as C

SCRIPT = r'''
import sys
import numpy as np
import torch
import cntk as C

def build():
    C.cntk_py.set_fixed_random_seed(7)
    x = C.input_variable(3, name="x")
    return C.layers.Sequential([C.layers.Dense(4, activation=C.relu, name="hidden"), C.layers.Dense(4),
                                C.layers.Dense(2), C.layers.BatchNormalization()])(x)

mode, path = sys.argv[1], sys.argv[2]
if mode == "save":
    for _ in range(5):
        C.input_variable(1) + C.parameter(1)  # other uids than in the loading process
    z = build()
    for p in z.parameters:
        p.value = np.random.RandomState(len(p.name)).rand(*p.shape).astype(np.float32)
    torch.save(z.torch_module().state_dict(), path + ".pt")
    z.save(path + ".model")
    print(" ".join(z.torch_module().state_dict().keys()))
else:
    z = build()
    missing = z.torch_module().load_state_dict(torch.load(path + ".pt"))
    loaded = C.load_model(path + ".model")
    data = np.random.RandomState(0).rand(5, 3).astype(np.float32)
    assert np.array_equal(z.eval(data), loaded.eval(data)), "load_state_dict did not give the saved model"
    assert list(loaded.torch_module().state_dict()) == list(z.torch_module().state_dict())
    print(" ".join(z.torch_module().state_dict().keys()))
'''


def test_state_dict_round_trip_across_two_processes(tmp_path):
    script = tmp_path / "sd.py"
    script.write_text(SCRIPT)
    base = str(tmp_path / "m")
    runs = [subprocess.run([sys.executable, str(script), mode, base], capture_output=True, text=True, timeout=120)
            for mode in ("save", "load")]
    for run in runs:
        assert run.returncode == 0, run.stderr
    saved_keys, loaded_keys = (r.stdout.split() for r in runs)
    assert saved_keys == loaded_keys
    assert saved_keys[:4] == ["hidden.b", "hidden.W", "dense.b", "dense.W"]
    assert {"dense_1.W", "dense_1.b"} <= set(saved_keys)
    assert any(k.startswith("batchnormalization.") for k in saved_keys)


def test_names_that_clash_with_module_attributes_or_repeat_are_made_unique():
    x = C.input_variable(2)
    z = C.times(x, C.parameter((2, 2), name="training")) + C.parameter(2, name="b") + \
        C.parameter(2, name="b") + C.parameter(2, name="3d") + C.parameter(2, name="class")
    keys = list(z.torch_module().state_dict())
    assert sorted(keys) == sorted(["training_", "b", "b_1", "v3d", "class_"])
    assert all(isinstance(v, torch.Tensor) for v in z.torch_module().state_dict().values())
