"""What does not depend on a delayed value leaves the step loop: it runs once over all steps."""
import numpy as np

import cntk as C
from cntk_compat.core.engine import call_plan
from cntk_compat.core.recurrence import RecurrentLoop
from cntk_compat.ops.linear import _times


def _loop_of(f):
    return [m for module in call_plan(f.outputs).modules.values() for m in module.modules()
            if isinstance(m, RecurrentLoop)][0]


def _count(graph_module, target):
    return sum(1 for n in graph_module.graph.nodes if n.op == "call_function" and n.target is target)


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def test_gru_input_projection_runs_once_and_values_are_cntks_gru():
    x = C.sequence.input_variable(3)
    cell = C.layers.GRU(4)
    f = C.layers.Recurrence(cell)(x)
    rng = np.random.default_rng(0)
    data = [rng.standard_normal((n, 3)).astype(np.float32) for n in (4, 2)]
    out = f.eval({x: data})
    loop = _loop_of(f)
    assert _count(loop.prelude, _times) == 1          # x·W, for all steps at once
    assert _count(loop.step, _times) == 2             # h·H and (r*h)·H1 stay in the step
    p = {q.name: q.value for q in cell.parameters}
    for seq, got in zip(data, out):
        h = np.zeros(4, np.float32)
        for t, xt in enumerate(seq):
            from_x, from_h = xt @ p["W"] + p["b"], h @ p["H"]
            z = _sigmoid(from_x[:4] + from_h[:4])
            r = _sigmoid(from_x[4:8] + from_h[4:8])
            h = (1 - z) * np.tanh(from_x[8:] + (r * h) @ p["H1"]) + z * h
            np.testing.assert_allclose(got[t], h, rtol=1e-5, atol=1e-6)


def test_random_draws_stay_in_the_step():
    x = C.sequence.input_variable(2)
    h, v = C.placeholder(name="h"), C.placeholder(name="v")
    # a block: the draw on v lies inside the loop's step, though it does not depend on h
    step = C.as_block(h + v * C.random.uniform_like(v, seed=3), [(h, C.placeholder()), (v, C.placeholder())],
                      "NoisyStep")
    f = C.layers.Recurrence(step)(x)
    f.eval({x: [np.ones((3, 2), np.float32)]})
    loop = _loop_of(f)
    drawn = [n for n in loop.step.graph.nodes if n.op == "call_function" and n.meta.get("cntk_hoistable") is False]
    assert drawn and loop.prelude is None
