"""The global switches: deterministic algorithms, checked mode, trace level, node timing."""
import re

import numpy as np
import pytest
import torch

import cntk as C
from cntk import cntk_py
from cntk.debugging import (force_deterministic, get_computation_network_trace_level, is_checked_mode,
                            set_checked_mode, set_computation_network_trace_level, set_node_timing)


@pytest.fixture
def restore_torch_flags():
    saved = (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled(),
             torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark, torch.is_anomaly_enabled(),
             cntk_py._state["deterministic"], cntk_py.get_random_seed(), cntk_py.is_random_seed_fixed())
    yield
    torch.use_deterministic_algorithms(saved[0], warn_only=saved[1])
    torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = saved[2], saved[3]
    torch.autograd.set_detect_anomaly(saved[4])
    cntk_py._state["deterministic"] = saved[5]
    (cntk_py.set_fixed_random_seed if saved[7] else cntk_py.reset_random_seed)(saved[6])
    set_computation_network_trace_level(0)
    set_node_timing(False)


def test_force_deterministic_sets_torch_flags_and_the_seed(restore_torch_flags):
    torch.backends.cudnn.benchmark = True
    with pytest.warns(Warning, match="RNN"):
        force_deterministic(7)
    assert torch.are_deterministic_algorithms_enabled()
    assert torch.backends.cudnn.deterministic and not torch.backends.cudnn.benchmark
    assert cntk_py.should_force_deterministic_algorithms() and cntk_py.get_random_seed() == 7
    first = C.parameter((5,), init=C.glorot_uniform()).value
    with pytest.warns(Warning):
        force_deterministic(7)
    np.testing.assert_array_equal(C.parameter((5,), init=C.glorot_uniform()).value, first)
    with pytest.raises(ValueError, match="seed"):
        force_deterministic(-1)


def test_checked_mode_is_remembered_and_keeps_nan_results_legal(restore_torch_flags):
    x = C.input_variable(1, needs_gradient=True)
    g = C.element_times(C.asin(x), 0.0)
    data = {x: np.ones((1, 1), np.float32)}  # d asin(x)/dx at 1 is inf; times 0 from the next op: nan
    set_checked_mode(True)
    assert is_checked_mode()
    assert np.isnan(g.grad(data, wrt=[x])).all()     # as in CNTK: a NaN gradient is a result, not an error
    set_checked_mode(False)
    assert not is_checked_mode()
    with pytest.raises(TypeError, match="enable"):
        set_checked_mode("yes")


def _model():
    x = C.input_variable(2)
    return x, C.relu(C.times(x, C.parameter((2, 3), init=-1.0)) + 4.0)


def test_trace_level_1_prints_shapes_once_and_1000_prints_abs_sums(restore_torch_flags, capsys):
    x, model = _model()
    data = {x: np.array([[1.0, 2.0]], np.float32)}
    set_computation_network_trace_level(1)
    assert get_computation_network_trace_level() == 1
    model.eval(data)
    first = capsys.readouterr().err
    assert re.search(r"relu\S*\s+\S+\s+shape \(1, 3\)", first)
    model.eval(data)
    assert "shape" not in capsys.readouterr().err  # static info only once
    set_computation_network_trace_level(1000)
    x, model = _model()
    data = {x: np.array([[1.0, 2.0]], np.float32)}
    model.eval(data)
    sums = [float(v) for v in re.findall(r"abs sum (\S+)", capsys.readouterr().err)]
    assert 3.0 in sums and 9.0 in sums  # times: [-3,-3,-3]; relu(times + 4): [1,1,1]
    set_computation_network_trace_level(0)
    x, model = _model()
    data = {x: np.array([[1.0, 2.0]], np.float32)}
    model.eval(data)
    assert capsys.readouterr().err == ""
    with pytest.raises(ValueError, match="level"):
        set_computation_network_trace_level(-1)


def test_a_network_keeps_the_trace_level_it_was_compiled_with(restore_torch_flags, capsys):
    # CNTK 2.7: the level is the compiled network's; setting it later changes nothing for networks compiled before
    x, before = _model()
    data = {x: np.array([[1.0, 2.0]], np.float32)}
    before.eval(data)                                   # compiled at level 0
    set_computation_network_trace_level(1000)
    before.eval(data)
    assert capsys.readouterr().err == ""                # still untraced
    x2, traced = _model()
    data2 = {x2: np.array([[1.0, 2.0]], np.float32)}
    traced.eval(data2)                                  # compiled at level 1000
    assert "abs sum" in capsys.readouterr().err
    set_computation_network_trace_level(0)
    traced.eval(data2)
    assert "abs sum" in capsys.readouterr().err         # keeps tracing at the level it was compiled with
    before.eval(data)
    assert capsys.readouterr().err == ""


def test_node_timing_is_reported_by_print_node_timing_as_cntk_prints_it(restore_torch_flags, capsys):
    x, model = _model()
    label = C.input_variable(3)
    loss = C.squared_error(model, label)
    trainer = C.Trainer(model, (loss, None), [C.sgd(model.parameters, C.learning_parameter_schedule(0.1))])
    data = {x: np.ones((4, 2), np.float32), label: np.zeros((4, 3), np.float32)}
    trainer.print_node_timing()  # CNTK 2.7: nothing before the trainer's first minibatch (its network is not built)
    assert capsys.readouterr().err == ""
    trainer.train_minibatch(data)
    trainer.print_node_timing()  # after a minibatch without timing: every node, with zero counts
    before = capsys.readouterr().err.splitlines()
    assert before and all(re.fullmatch(r"\S+ +forward avg 0\.000000s, backward avg 0\.000000s \(fwd# 0\|bwd# 0\)", l)
                          for l in before)
    set_node_timing(True)
    for _ in range(3):
        trainer.train_minibatch(data)
    model.eval({x: data[x]})
    assert capsys.readouterr().err == ""  # nothing is printed while timing
    times_uid = [f.uid for f in C.logging.graph.depth_first_search(model, lambda n: getattr(n, "op_name", "") == "Times")]
    trainer.print_node_timing()
    lines = capsys.readouterr().err.splitlines()
    rows = {m.group(1): m.groups()[1:] for m in
            (re.fullmatch(r"(\S+) +forward avg ([0-9.]+)s, backward avg ([0-9.]+)s \(fwd# (\d+)\|bwd# (\d+)\)", l)
             for l in lines)}
    assert len(rows) == len(lines) == len(before)
    assert [l[:l.index(" ")] for l in lines] == sorted(rows, key=str.lower)
    assert rows[times_uid[0]][2:] == ("4", "3")  # three training steps and one evaluation; three backward passes
    assert all(float(v) >= 0 for r in rows.values() for v in r[:2])
    set_node_timing(False)
    trainer.train_minibatch(data)
    trainer.print_node_timing()
    assert rows[times_uid[0]][2:] == re.search(re.escape(times_uid[0]) + r" .*fwd# (\d+)\|bwd# (\d+)",
                                               capsys.readouterr().err).groups()


def test_a_functions_node_timing_starts_with_its_first_evaluation(restore_torch_flags, capsys):
    # CNTK 2.7: a Function prints nothing before its first evaluation (its network is compiled then), even when
    # a Function inside it was evaluated; afterwards every node, with zero counts while timing is off
    x = C.input_variable(2)
    inner = C.plus(x, x)
    outer = C.times(inner, C.parameter((2, 2), init=1.0))
    inner.print_node_timing()
    assert capsys.readouterr().err == ""
    inner.eval({x: np.ones((1, 2), np.float32)})
    outer.print_node_timing()
    assert capsys.readouterr().err == ""
    inner.print_node_timing()
    assert capsys.readouterr().err == ("%-30s forward avg 0.000000s, backward avg 0.000000s (fwd# 0|bwd# 0)\n"
                                       % inner.root_function.uid)


def test_checked_mode_stops_at_a_node_producing_nan_as_cntk(restore_torch_flags, capsys):
    # CNTK 2.7: a Function compiled (first evaluated) in checked mode raises at the first node whose output
    # holds a NaN; one compiled before stays unchecked, and a checked one stays checked after the mode is off
    w, x = C.input_variable(1), C.input_variable(1)
    y = C.layers.Sequential([C.square, C.square, C.square])
    data = {w: np.array([[3.0]], np.float32), x: np.array([[3.0]], np.float32)}
    before = C.exp(-y(x)) * C.exp(y(w)) + 1          # exp(-6561) * exp(6561) = 0 * inf
    assert np.isnan(before.eval(data)).all()
    try:
        set_checked_mode(True)
        assert np.isnan(before.eval(data)).all()
        checked = C.exp(-y(x)) * C.exp(y(w)) + 1
        times = checked.root_function.inputs[0].owner
        with pytest.raises(RuntimeError) as e:
            checked.eval(data)
        assert str(e.value) == "%s ElementTimes operation unexpectedly produced NaN values." % times.uid
        assert capsys.readouterr().err.endswith(
            "HasNan: NaN detected at EndForwardProp (0,0) in (1,1) matrix\n\nAbout to throw exception "
            "'%s ElementTimes operation unexpectedly produced NaN values.'\n" % times.uid)
        finite = C.log(C.constant(-1.0) * x)           # CNTK's log of a negative number is finite (-85.1)
        assert np.isfinite(finite.eval(data)).all()
    finally:
        set_checked_mode(False)
    with pytest.raises(RuntimeError, match="unexpectedly produced NaN values"):
        checked.eval(data)


def test_checked_mode_runs_the_network_once():
    # CNTK's own test suite runs with checked mode on: assign and batch statistics must apply once per eval
    C.debugging.set_checked_mode(True)
    try:
        data = np.asarray([[1.]], np.float32)
        value = C.parameter(init=data)
        dest = C.parameter(shape=data.shape)
        assign_op = C.assign(dest, value)
        y = dest + value
        result = C.combine([y, assign_op]).eval()
        assert np.array_equal(result[y.output], data) and np.array_equal(dest.asarray(), data)
        counter = C.parameter(init=np.zeros(1, np.float32))
        bump = C.assign(counter, counter + 1)
        bump.eval()
        bump.eval()
        assert counter.value[0] == 2
    finally:
        C.debugging.set_checked_mode(False)
