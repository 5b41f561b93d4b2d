"""An elementwise result over a placeholder-fed operand and an input: CNTK 2.7 gives it the input's dynamic axes
(the placeholder's are not known yet), so a loss built before replace_placeholder stays per sample."""
import numpy as np

import cntk as C


def test_known_dynamic_axes_win_over_unknown_ones():
    p = C.placeholder(shape=(2,))
    t = C.input_variable((2,))
    s = C.sequence.input_variable((2,))
    assert (p + t).output.dynamic_axes == t.dynamic_axes
    assert C.element_select(t, p, p).output.dynamic_axes == t.dynamic_axes
    assert C.squared_error(p, t).output.dynamic_axes == t.dynamic_axes
    assert (p + s).output.dynamic_axes == s.dynamic_axes
    # with nothing but static operands besides the placeholder, the result stays unknown
    assert (p + C.constant(np.ones(2, np.float32))).output.dynamic_axes[0].name == "UnknownAxes"
    assert C.reduce_sum(p).output.dynamic_axes[0].name == "UnknownAxes"


def test_a_loss_built_on_a_placeholder_network_is_per_sample_after_the_replacement():
    x = C.input_variable(4)
    p = C.placeholder(shape=(4,))
    f = C.layers.Dense(2, init=C.glorot_uniform(seed=1))(p)
    t = C.input_variable(2)
    loss = C.cross_entropy_with_softmax(f, t)
    f.replace_placeholder(x)
    xs = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    ts = np.eye(2, dtype=np.float32)[[0, 1, 1]]
    logits = f.eval({x: xs})
    expected = np.log(np.exp(logits).sum(axis=1)) - (logits * ts).sum(axis=1)
    np.testing.assert_allclose(loss.eval({x: xs, t: ts}).reshape(-1), expected, rtol=1e-5)
    assert loss.eval({x: xs, t: ts}).shape == (3, 1)
