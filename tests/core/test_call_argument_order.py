"""The arguments of a @Function applied to other Functions' outputs, and of clones with substitutions: an
argument replaced by a Function's output gives its place to that Function's own arguments (orders from CNTK 2.7).
A book's regression example tests a criterion made by calling a two-parameter @Function on (model, target) with
``loss.test((X, y))``, which reads the data in the order of ``loss.arguments``."""
import numpy as np

import cntk as C
from cntk.layers import Dense


def _names(f):
    return [a.name for a in f.arguments]


def _build():
    f, t, u = C.input_variable(3, name='f'), C.input_variable(1, name='t'), C.input_variable(3, name='u')

    @C.Function
    def crit(output, target):
        return C.squared_error(output, target)

    @C.Function
    def three(a, b, c):
        return a * b + c

    @C.Function
    def rev(p, q):
        return q - p

    return f, t, u, crit, three, rev


def test_a_substituted_argument_gives_its_place_to_the_substitutes_arguments():
    f, t, u, crit, three, rev = _build()
    assert _names(crit(Dense(1)(C.splice(f, t)), t)) == ['f', 't']
    assert _names(crit(Dense(1)(C.splice(u, f)), t)) == ['u', 'f', 't']
    assert _names(crit(Dense(1)(f + u), t)) == ['f', 'u', 't']
    assert _names(crit(t, Dense(1)(f))) == ['t', 'f']
    assert _names(three(f, u, f)) == ['f', 'u']
    assert _names(three(f + u, t, u)) == ['f', 'u', 't']
    assert _names(three(u, rev(f, u), t)) == ['u', 'f', 't']
    assert _names(rev(f, u)) == ['f', 'u'] and _names(rev(rev(u, f), f)) == ['u', 'f']
    ph = C.placeholder(3, name='ph')
    assert _names(crit(Dense(1)(ph + f), t)) == ['ph', 'f', 't']
    assert _names(three(ph, f, ph)) == ['ph', 'f']


def test_clones_keep_the_order_with_their_substitutes_in_place():
    f, t, u, crit, three, rev = _build()
    g = three(f + u, t, u)
    assert _names(g.clone(C.CloneMethod.share, {t: C.input_variable(1, name='t2')})) == ['f', 'u', 't2']
    assert _names(g.clone(C.CloneMethod.share, {u: C.input_variable(3, name='u2')})) == ['f', 'u2', 't']
    h = crit(Dense(1)(C.splice(f, t)), t)
    assert _names(h.clone('clone', {f: C.input_variable(3, name='f2') * 2})) == ['f2', 't']


def test_a_criterion_made_by_a_call_tests_data_given_in_its_argument_order():
    features, target = C.input_variable(9), C.input_variable(1)
    z = Dense(1)(features)

    @C.Function
    def criterion(output, target):
        return C.squared_error(output, target), C.reduce_mean(C.abs(output - target))

    loss = criterion(z, target)
    assert [a.shape for a in loss.arguments] == [(9,), (1,)]
    x, y = np.ones((5, 9), np.float32), np.ones((5, 1), np.float32)
    assert loss.test((x, y))['samples'] == 5
    assert loss.test([x, y])['samples'] == 5     # CNTK takes a list of arrays as the tuple
