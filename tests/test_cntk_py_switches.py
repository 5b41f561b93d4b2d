"""The native engine's switches that CNTK's debugging guide calls through cntk.cntk_py."""
import os

import numpy as np

import pytest
import torch

import cntk as C
from cntk import cntk_py


@pytest.fixture
def restore():
    saved = (torch.backends.mkldnn.enabled, torch.get_num_threads(), os.environ.get("CUDA_LAUNCH_BLOCKING"),
             dict(cntk_py._state), torch.are_deterministic_algorithms_enabled(),
             torch.is_deterministic_algorithms_warn_only_enabled(), cntk_py.get_random_seed(),
             cntk_py.is_random_seed_fixed())
    yield
    (cntk_py.set_fixed_random_seed if saved[7] else cntk_py.reset_random_seed)(saved[6])
    torch.use_deterministic_algorithms(saved[4], warn_only=saved[5])
    torch.backends.mkldnn.enabled = saved[0]
    torch.set_num_threads(saved[1])
    if saved[2] is None:
        os.environ.pop("CUDA_LAUNCH_BLOCKING", None)
    else:
        os.environ["CUDA_LAUNCH_BLOCKING"] = saved[2]
    cntk_py._state.clear()
    cntk_py._state.update(saved[3])
    C.debugging.set_node_timing(False)


def test_the_debugging_guide_cell_runs(restore):
    # Manual_How_to_debug: the switches it sets before debugging a model
    C.cntk_py.set_gpumemory_allocation_trace_level(1)
    C.cntk_py.enable_synchronous_gpukernel_execution()
    C.cntk_py.force_deterministic_algorithms()
    C.cntk_py.set_fixed_random_seed(98052)
    C.cntk_py.disable_forward_values_sharing()
    assert cntk_py.is_synchronous_gpukernel_execution_enabled() and os.environ["CUDA_LAUNCH_BLOCKING"] == "1"
    assert cntk_py.is_random_seed_fixed() and cntk_py.get_random_seed() == 98052
    with pytest.raises(ValueError, match="trace level"):
        cntk_py.set_gpumemory_allocation_trace_level(-1)


def test_cpu_switches_act_on_torch(restore):
    cntk_py.disable_cpueval_optimization()
    assert not torch.backends.mkldnn.enabled
    cntk_py.enable_cpueval_optimization()
    assert torch.backends.mkldnn.enabled
    cntk_py.set_max_num_cputhreads(1)
    assert cntk_py.get_max_num_cputhreads() == torch.get_num_threads() == 1
    with pytest.raises(ValueError, match="positive"):
        cntk_py.set_max_num_cputhreads(0)


def test_native_names_of_the_debugging_switches(restore, capsys):
    x = C.input_variable(2)
    f = C.relu(x) + 1
    cntk_py.enable_node_timing()
    data = {x: np.array([[1.0, -1.0]], np.float32)}
    f.eval(data)
    cntk_py.disable_node_timeing()  # sic: CNTK's spelling
    f.eval(data)
    f.print_node_timing()
    counts = [line.split("(fwd# ")[1] for line in capsys.readouterr().err.splitlines()]
    assert counts == ["1|bwd# 0)"] * 2
    cntk_py.set_trace_level(2)
    assert cntk_py.get_trace_level() == C.logging.TraceLevel.Info
    cntk_py.set_trace_level(1)


def test_universal_learner_applies_its_update_graph():
    # cntk_py.universal_learner(parameters, gradient constants, update function), as CNTK's tests call it
    x = C.input_variable(2)
    p = C.parameter(shape=(2,), init=1.0)
    g = C.constant(0, shape=p.shape)
    learner = cntk_py.universal_learner([p], [g], C.assign(p, p - 0.5 * g))
    loss = C.reduce_sum(p * x)
    C.Trainer(loss, (loss, None), [learner]).train_minibatch({x: np.array([[1., 2.]], np.float32)})
    assert np.allclose(p.value, [0.5, 0.0])


def test_native_names_that_cntks_tests_use():
    from cntk import cntk_py, variables
    p = cntk_py.Parameter((1, 2), cntk_py.DataType_Float, 5.0)
    assert p.__class__ == variables.Parameter and p.value.tolist() == [[5.0, 5.0]]
    c = cntk_py.Constant((2,), cntk_py.DataType_Double, 1.5)
    assert c.__class__ == variables.Constant and c.dtype == np.float64 and c.value.tolist() == [1.5, 1.5]
    config = cntk_py.Dictionary()
    config['traceLevel'] = 2
    assert config['traceLevel'] == 2
    assert issubclass(C.Value, cntk_py.Value) and issubclass(C.NDArrayView, cntk_py.NDArrayView)
    assert C.cpu().type() == cntk_py.DeviceKind_CPU != cntk_py.DeviceKind_GPU
    # DeviceDescriptor.id() is a method in CNTK; the number reads as an attribute too
    assert C.cpu().id() == 0 and C.cpu().id == 0


def test_the_native_value_classes_are_the_bases_of_the_public_ones():
    # CNTK's tests call the SWIG base directly: super(C.Value, v).asarray(), cntk_py.Value(ndarrayview)
    from cntk import cntk_py
    v = C.Value(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(super(C.Value, v).asarray(), v.asarray())
    np.testing.assert_array_equal(super(C.NDArrayView, v.data).asarray(), v.asarray())
    np.testing.assert_array_equal(cntk_py.Value(v.data).asarray(), v.asarray())


def test_cntk_py_names_the_classes_cntks_python_classes_derive_from():
    # Keras' CNTK backend: isinstance(value, C.cntk_py.Function)
    x = C.input_variable(2)
    assert isinstance(C.square(x), cntk_py.Function) and isinstance(x, cntk_py.Variable)
    assert cntk_py.Trainer is C.Trainer and cntk_py.Learner is C.learners.Learner
    assert cntk_py.SwigMinibatchSource is C.io.UserMinibatchSource
