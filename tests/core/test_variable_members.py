"""CNTK 2.7's Variables (inputs, placeholders, constants, parameters, outputs) have neither .output, .outputs nor
.eval (AttributeError), and a placeholder is a plain Variable (type name 'Variable'); facts from CNTK 2.7."""
import numpy as np
import pytest

import cntk as C


def _variables():
    x = C.input_variable(2, name='x')
    return [x, C.placeholder(name='p'), C.constant(np.ones(2), name='c'), C.parameter((2,), init=1, name='w'),
            (x + 1).output]


@pytest.mark.parametrize("member", ["output", "outputs", "eval"])
def test_variables_lack_the_members_of_functions(member):
    for v in _variables():
        with pytest.raises(AttributeError, match="'%s' object has no attribute '%s'" % (type(v).__name__, member)):
            getattr(v, member)


def test_a_placeholder_is_a_plain_variable():
    p = C.placeholder(name='p')
    assert type(p) is C.variables.Variable and type(p).__name__ == 'Variable'
    assert type(C.ops.placeholder()).__name__ == 'Variable'
    assert [type(v).__name__ for v in _variables()] == ['Variable', 'Variable', 'Constant', 'Parameter', 'Variable']


def test_functions_keep_them():
    x = C.input_variable(2, name='x')
    f = x + 1
    assert f.output.name == '' and len(f.outputs) == 1
    np.testing.assert_allclose(f.eval({x: np.ones((1, 2), np.float32)}), [[2, 2]])
    np.testing.assert_allclose(C.combine([C.constant(np.ones(2))]).eval(), [1, 1])
