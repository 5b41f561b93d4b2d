"""A recurrence whose cell stabilizes its state (LSTM with enable_self_stabilization), cloned so that its input
becomes an expression of a fresh placeholder, stays untyped until the placeholder is replaced, as in CNTK 2.7
(BiDAF's polymath.py clones its input layer this way). The last-resort loop guess once typed the stabilized state
from the stabilizer's scalar factor and the cell's `times` refused it: "Times: The left operand ... rank (0) must
be >= #axes (1)". Such a guess (from static scalars alone) now starts the loop's typing without being a type that a
shape rule may refuse."""
import numpy as np

import cntk as C


def _stabilized_recurrence():
    x = C.placeholder(shape=(6,))
    with C.default_options(enable_self_stabilization=True):
        r = C.layers.Recurrence(C.layers.LSTM(3))(x)
    return x, r


def test_clone_onto_untyped_placeholder_stays_untyped():
    x, r = _stabilized_recurrence()
    ph = C.placeholder()
    c = r.clone(C.CloneMethod.share, {x: ph * 2})
    # CNTK 2.7: (-2,) [(-2,)] (NDShape::Unknown)
    assert c.shape == (-2,)
    assert [p.shape for p in c.placeholders] == [(-2,)]


def test_cloned_loop_computes_once_its_placeholder_is_replaced():
    x, r = _stabilized_recurrence()
    ph = C.placeholder()
    c = r.clone(C.CloneMethod.share, {x: ph * 2})
    inp = C.sequence.input_variable(6)
    d = c.replace_placeholders({c.placeholders[0]: inp})
    assert d.shape == (3,)
    direct = r.replace_placeholders({x: inp * 2})  # the same parameters (CloneMethod.share)
    data = [np.linspace(-1, 1, 12, dtype=np.float32).reshape(2, 6)]
    got = d.eval({inp: data})
    want = direct.eval({direct.arguments[0]: data})
    assert np.allclose(got[0], want[0], atol=1e-6)
    assert got[0].shape == (2, 3)

