"""A binary op of a sequence operand and an operand with the batch axis alone reads the latter through a
ReconcileDynamicAxis node laid out like the former, as CNTK 2.7 builds it (structure, printing and numbers from
CNTK 2.7): elementwise ops, times, times_transpose, cosine_distance; not splice or the ops CNTK builds as blocks."""
import numpy as np
import pytest

import cntk as C


def _inputs():
    return C.sequence.input_variable(2, name='s'), C.input_variable(2, name='b', needs_gradient=True)


def owners(f):
    return [(i.name, i.owner.op_name if i.is_output else '-') for i in f.root_function.inputs]


def test_the_batch_operand_enters_through_a_reconcile_node():
    s, b = _inputs()
    f = C.plus(s, b)
    assert owners(f) == [('s', '-'), ('', 'ReconcileDynamicAxis')]
    assert owners(C.plus(b, s)) == [('', 'ReconcileDynamicAxis'), ('s', '-')]
    assert str(f) == 'Composite(s: Sequence[Tensor[2]], b: Tensor[2]) -> Sequence[Tensor[2]]'
    rd = f.root_function.inputs[1].owner
    assert (rd.op_name, rd.is_primitive, rd.name) == ('ReconcileDynamicAxis', True, '')
    assert str(rd) == 'ReconcileDynamicAxis(b: Tensor[2], s: Sequence[Tensor[2]]) -> Sequence[Tensor[2]]'
    assert [v.name for v in rd.inputs] == ['b', 's']
    assert [v.name for v in f.arguments] == ['s', 'b']
    found = C.logging.graph.depth_first_search(f, lambda x: True)
    assert [getattr(x, 'op_name', x.name) for x in found] == ['Plus', 's', 'ReconcileDynamicAxis', 'b']
    for op in (C.minus, C.element_times, C.pow, C.equal, C.less, C.greater_equal, C.log_add_exp, C.times,
               C.cosine_distance):
        other = C.input_variable((2, 2), name='w') if op is C.times else b
        assert owners(op(s, other))[1][1] == 'ReconcileDynamicAxis'
    assert owners(C.minus(C.plus(s, b), b)) == [('', 'Plus'), ('', 'ReconcileDynamicAxis')]


def test_operands_that_need_no_reconciling():
    s, b = _inputs()
    assert owners(s + C.constant(np.ones(2))) == [('s', '-'), ('', '-')]
    assert owners(C.plus(b, C.input_variable(2, name='b2'))) == [('b', '-'), ('b2', '-')]
    with pytest.raises(RuntimeError, match="Operation 'Splice'"):
        C.splice(s, b)


def test_numbers_and_gradients():
    s, b = _inputs()
    seqs = [np.arange(6, dtype=np.float32).reshape(3, 2), np.ones((1, 2), np.float32)]
    bb = np.array([[1, 2], [3, 4]], np.float32)
    f = C.element_times(b, s)
    out = f.eval({s: seqs, b: bb})
    np.testing.assert_allclose(out[0], [[0, 2], [2, 6], [4, 10]])
    np.testing.assert_allclose(out[1], [[3, 4]])
    np.testing.assert_allclose(f.grad({s: seqs, b: bb}, wrt=[b]), [[6, 9], [1, 1]])
    w = C.input_variable((2, 2), name='w', needs_gradient=True)
    t = C.times(s, w)
    ww = np.arange(8, dtype=np.float32).reshape(2, 2, 2)
    out = t.eval({s: seqs, w: ww})
    np.testing.assert_allclose(out[0], [[2, 3], [6, 11], [10, 19]])
    np.testing.assert_allclose(out[1], [[10, 12]])
    np.testing.assert_allclose(t.grad({s: seqs, w: ww}, wrt=[w]), [[[6, 6], [9, 9]], [[1, 1], [1, 1]]])
    c = C.cosine_distance(s, b)
    out = c.eval({s: seqs, b: bb})
    np.testing.assert_allclose(out[0], [0.8944272, 0.99227786, 0.97780246], rtol=1e-6)
    np.testing.assert_allclose(c.grad({s: seqs, b: bb}, wrt=[b]),
                               [[-0.04545988, 0.02272999], [0.02262741, -0.01697057]], rtol=1e-5)
