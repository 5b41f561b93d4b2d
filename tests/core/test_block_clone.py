"""Cloning a block function: the substitutions reach the leaves its body captures, as in CNTK."""
import numpy as np

import cntk as C


def _dense_block():
    x = C.input_variable((1,), name="input")
    ph = C.placeholder(name="placeholder")
    w = C.parameter(shape=(1, 1), init=1)
    b = C.parameter(shape=(1,), init=2)
    return C.as_block(C.times(ph, w) + b, [(ph, x)], "dense"), w, b


def test_substituted_parameters_of_a_block_body():
    block, w, b = _dense_block()
    w_new = C.parameter(shape=(1, 1), init=3)
    b_new = C.parameter(shape=(1,), init=4)
    clone = block.clone("share", {w: w_new, b: b_new})
    assert [i.uid for i in clone.inputs[:2]] == [w_new.uid, b_new.uid]
    assert set(clone.parameters) == {w_new, b_new}
    assert np.array_equal(clone.eval({clone.arguments[0]: [np.asarray([2.], np.float32)]}), [[10.]])
    # the original block is untouched
    assert np.array_equal(block.eval({block.arguments[0]: [np.asarray([2.], np.float32)]}), [[4.]])


def test_a_block_with_nothing_substituted_is_shared():
    block, w, b = _dense_block()
    clone = block.clone("share")
    assert set(clone.parameters) == {w, b}
