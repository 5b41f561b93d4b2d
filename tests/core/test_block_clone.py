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


def test_clone_methods_copy_or_share_parameters_and_constants_as_cntk():
    # CNTK 2.7: share keeps both; clone copies both; freeze turns parameters into constants and copies the
    # constants (changing the original's constant leaves the frozen clone's alone)
    x = C.input_variable(3)
    f = C.times(x, C.constant(np.ones((3, 5), np.float32))) + C.parameter((5,), init=1)
    same = {m: ([a.uid == b.uid for a, b in zip(f.constants, g.constants)],
                [a.uid == b.uid for a, b in zip(f.parameters, g.parameters)], len(g.constants), len(g.parameters))
            for m in ('share', 'clone', 'freeze') for g in [f.clone(m)]}
    assert same == {'share': ([True], [True], 1, 1), 'clone': ([False], [False], 1, 1), 'freeze': ([False], [], 2, 0)}
    frozen = f.clone('freeze')
    f.constants[0].value = np.zeros((3, 5), np.float32)
    np.testing.assert_array_equal(frozen.eval({frozen.arguments[0]: np.ones((1, 3), np.float32)}), [[4, 4, 4, 4, 4]])
