"""Values asked for with ``outputs=`` come back keyed by the objects asked for, and a single-output Function
equals its output Variable (golden values and key types from CNTK 2.7). A third-party AlexNet script read
``trainer.train_minibatch(mb, outputs=[ce, pe])[1][ce]``, which failed here with a KeyError."""
import numpy as np
import pytest

import cntk as C

X = np.array([[1, 2], [3, -1], [0.5, 0.5]], np.float32)
Y = np.array([[1], [0], [2]], np.float32)
CE = [0.809999942779541, 3.4225001335144043, 3.150624990463257]
PE = [[0.8999999761581421], [1.850000023841858], [1.774999976158142]]


def _graph():
    x = C.input_variable(2, name='x')
    y = C.input_variable(1, name='y')
    W = C.parameter((2, 1), init=np.array([[0.5], [-0.25]], np.float32))
    b = C.parameter(1, init=0.1)
    z = C.times(x, W) + b
    ce = C.squared_error(z, y, name='ce')
    pe = C.abs(z - y, name='pe')
    return x, y, W, z, ce, pe


def _names(d):
    return sorted(type(k).__name__ for k in d)


def test_forward_keys_the_values_by_what_was_asked_for():
    x, y, W, z, ce, pe = _graph()
    both = C.combine([ce, pe])
    _, d = both.forward({x: X, y: Y}, outputs=[ce, pe.output])
    assert _names(d) == ['Function', 'Variable']
    np.testing.assert_allclose(d[ce], CE, rtol=1e-6)
    np.testing.assert_allclose(d[pe.output], PE, rtol=1e-6)
    with pytest.raises(KeyError):     # as in CNTK: the Function's hash is its own
        d[ce.output]
    with pytest.raises(KeyError):
        d[pe]
    _, d = ce.forward({x: X, y: Y}, outputs=ce)      # one Function, not in a list
    assert _names(d) == ['Function']
    np.testing.assert_allclose(d[ce], CE, rtol=1e-6)


def test_forward_with_a_multi_output_function_gives_all_its_outputs():
    # CNTK 2.7 fails here (TypeError: cannot convert key of dictionary); cntk-compat computes every output
    x, y, W, z, ce, pe = _graph()
    both = C.combine([ce, pe])
    _, d = both.forward({x: X, y: Y}, outputs=both)
    assert list(d) == [ce.output, pe.output]
    np.testing.assert_allclose(d[ce.output], CE, rtol=1e-6)


def test_eval_and_grad_with_outputs():
    x, y, W, z, ce, pe = _graph()
    r = C.combine([ce, pe]).eval({x: X, y: Y}, outputs=[ce, pe.output])
    assert isinstance(r, dict) and _names(r) == ['Function', 'Variable']
    np.testing.assert_allclose(r[ce], CE, rtol=1e-6)
    r = C.combine([ce, pe]).eval({x: X, y: Y}, outputs=[ce])
    np.testing.assert_allclose(r, CE, rtol=1e-6)
    g, o = ce.grad({x: X, y: Y}, wrt=[W], outputs=[ce])
    np.testing.assert_allclose(g, [[7.525000095367432], [-9.074999809265137]], rtol=1e-6)
    np.testing.assert_allclose(o, CE, rtol=1e-6)


def test_a_single_output_function_equals_its_output():
    x, y, W, z, ce, pe = _graph()
    both = C.combine([ce, pe])
    assert ce == ce.output and ce.output == ce
    assert not (ce != ce.output) and not (ce.output != ce)
    assert ce != pe and not (ce == pe) and ce != both
    assert both.outputs[0] == ce
    assert ce in [ce.output] and ce.output in [ce]
    assert ce not in {ce.output: 1} and ce.output not in {ce: 1} and ce in {ce: 1}
    assert not (x == ce) and not (ce == x) and not (W == ce)
    assert not (ce == None) and not (ce == 3)  # noqa: E711
    assert hash(ce) != hash(ce.output)


def test_train_minibatch_outputs_are_keyed_as_requested():
    # akamotaco/normalizing_flow_cntk reads `train_minibatch(..., outputs=[loss])[1][loss]`; values from CNTK 2.7
    x, y, W, z, ce, pe = _graph()
    b = [p for p in z.parameters if p is not W][0]
    trainer = C.Trainer(z, (ce, pe), [C.sgd([W, b], 0.1)])
    updated, d = trainer.train_minibatch({x: X, y: Y}, outputs=[ce, pe.output, z])
    assert updated
    assert _names(d) == ['Function', 'Function', 'Variable']
    np.testing.assert_allclose(d[ce], CE, rtol=1e-6)
    np.testing.assert_allclose(d[pe.output], PE, rtol=1e-6)
    np.testing.assert_allclose(d[z], [[0.1], [1.85], [0.22499999403953552]], rtol=1e-6)
    with pytest.raises(KeyError):
        d[ce.output]
    np.testing.assert_allclose(W.value, [[0.24916663765907288], [0.052500009536743164]], rtol=1e-6)
    np.testing.assert_allclose(b.value, [0.1550000011920929], rtol=1e-6)
