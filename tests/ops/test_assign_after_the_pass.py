"""CNTK 2.7's assign writes its reference when the pass is over: the other nodes of the pass read the old value
(golden values from CNTK 2.7)."""
import numpy as np

import cntk as C


def _values(function):
    return sorted(np.asarray(v).tolist() for v in function.eval().values())


def test_other_nodes_of_the_pass_read_the_old_value_in_any_order():
    p = C.parameter(shape=(1,), init=1.0)
    a = C.assign(p, p + 1)
    b = p * 10
    assert _values(C.combine([a, b])) == [[2.0], [10.0]] and p.value.tolist() == [2.0]
    assert _values(C.combine([b, a])) == [[3.0], [20.0]] and p.value.tolist() == [3.0]


def test_assignments_of_one_pass_read_each_others_old_values():
    p = C.parameter(shape=(1,), init=1.0)
    q = C.parameter(shape=(1,), init=5.0)
    t, u = C.assign(q, q * 2), C.assign(p, q + 0)
    assert _values(C.combine([t, u])) == [[5.0], [10.0]]
    assert (p.value.tolist(), q.value.tolist()) == ([5.0], [10.0])


def test_a_step_counter_and_what_depends_on_it():
    # Keras' Adam on CNTK: lr_t uses pow(beta, iterations + 1) in the graph that increments iterations
    c = C.parameter(shape=(1,), init=0.0)
    inc = C.assign(c, c + 1)
    dep = C.pow(C.constant(0.5), c + 1)
    assert _values(C.combine([inc, dep])) == [[0.5], [1.0]] and c.value.tolist() == [1.0]
