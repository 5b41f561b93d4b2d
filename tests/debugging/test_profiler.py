"""The profiler writes a torch/Chrome trace of the enabled spans into its directory."""
import json
import os

import numpy as np
import pytest

import cntk as C
from cntk.debugging import disable_profiler, enable_profiler, start_profiler, stop_profiler


def _traces(directory):
    return sorted(f for f in os.listdir(directory) if f.endswith(".pt.trace.json"))


def _evaluate_a_few_times():
    x = C.input_variable(3)
    model = C.layers.Dense(4)(x)
    for _ in range(3):
        model.eval({x: np.ones((2, 3), np.float32)})


def test_profiling_writes_a_trace_when_stopped(tmp_path):
    directory = str(tmp_path / "prof")
    start_profiler(directory)
    assert os.path.isdir(directory) and _traces(directory) == []
    enable_profiler()
    _evaluate_a_few_times()
    stop_profiler()
    traces = _traces(directory)
    assert len(traces) == 1
    with open(os.path.join(directory, traces[0])) as f:
        events = json.load(f)["traceEvents"]
    names = {e.get("name") for e in events}
    assert "aten::addmm" in names  # the Dense layer's x·W + b (one addmm), run while enabled


def test_each_enabled_span_is_one_trace_and_nothing_is_gathered_while_disabled(tmp_path):
    directory = str(tmp_path / "prof")
    start_profiler(dir=directory, sync_gpu=False)
    _evaluate_a_few_times()  # not enabled yet: nothing is written
    stop_profiler()
    assert _traces(directory) == []
    start_profiler(dir=directory)
    enable_profiler()
    _evaluate_a_few_times()
    disable_profiler()
    assert len(_traces(directory)) == 1
    enable_profiler()
    _evaluate_a_few_times()
    stop_profiler()
    assert len(_traces(directory)) == 2


def test_enable_before_start_does_nothing_and_bad_arguments_are_errors(tmp_path, monkeypatch):
    # CNTK 2.7: enable_profiler()/disable_profiler() without start_profiler() return None and write nothing
    monkeypatch.chdir(tmp_path)
    assert enable_profiler() is None
    _evaluate_a_few_times()
    assert disable_profiler() is None
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="reserve_mem"):
        start_profiler(str(tmp_path), reserve_mem=-1)
    with pytest.raises(ValueError, match="dir"):
        start_profiler("")
