"""CNTK says on stderr, once per process, which device became the process-wide default at its first use:
creating a Constant, Parameter, layer with weights or Value, or asking use_default_device(); declaring inputs,
readers, learners or choosing the device with try_set_default_device do not (checked with CNTK 2.7)."""
import os
import subprocess
import sys

import pytest

LINE = "Selected CPU as the process wide default device."

SCRIPT = """
import sys
import cntk as C
C.device.try_set_default_device(C.device.cpu())
print('A', file=sys.stderr, flush=True)
x = C.input_variable(3)
print('B', file=sys.stderr, flush=True)
{first}
print('C', file=sys.stderr, flush=True)
C.Constant(2.0)
C.Parameter((2,))
print('D', file=sys.stderr, flush=True)
"""


def stderr_lines(first):
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    run = subprocess.run([sys.executable, "-c", SCRIPT.format(first=first)], env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return [line for line in run.stderr.splitlines() if line in ("A", "B", "C", "D", LINE)]


@pytest.mark.parametrize("first", ["C.Constant(1.0)", "C.layers.Dense(3)", "C.input_variable(2) + 1",
                                   "C.device.use_default_device()"])
def test_first_use_announces_the_device_once(first):
    assert stderr_lines(first) == ["A", "B", LINE, "C", "D"]


def test_declarations_do_not_use_the_device():
    assert stderr_lines("C.sequence.input_variable(4); C.Axis('a')") == ["A", "B", "C", LINE, "D"]


def test_a_gpu_is_named_by_its_id_and_cuda_name(monkeypatch):
    # CNTK's DeviceDescriptor.as_string(), in its "Selected GPU[0] Tesla K80 as the process wide default
    # device." line and in all_devices() ("(GPU[0] Tesla K80, CPU)")
    import torch
    from cntk_compat.core.device import DeviceDescriptor, DeviceKind, cpu
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i: "Tesla K80")
    gpu0 = DeviceDescriptor(DeviceKind.GPU, 0)
    assert repr(gpu0) == str(gpu0) == gpu0.as_string() == "GPU[0] Tesla K80"
    assert repr((gpu0, cpu())) == "(GPU[0] Tesla K80, CPU)" and cpu().as_string() == "CPU"


def test_device_kind_is_an_int_as_in_cntk():
    # CNTK 2.7: DeviceDescriptor.type() is a plain int, equal to DeviceKind.CPU, which prints by name
    import cntk as C
    kind = C.device.cpu().type()
    assert type(kind) is int and kind == 0 == C.device.DeviceKind.CPU
    assert str(C.device.DeviceKind.CPU) == "DeviceKind.CPU" and C.device.DeviceKind.GPU == 1
