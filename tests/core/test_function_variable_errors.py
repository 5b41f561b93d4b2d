"""What CNTK 2.7 says (error types, messages, results) where a script asks a Variable or a Function for something
it has not got: the owner of a non-output variable, a Function's ``type``, the single output of a Function of
several, gradients of variables that have none. Expected values: CNTK 2.7, probed on the same graphs."""
import numpy as np
import pytest

import cntk as C


def test_owner_is_only_an_outputs():
    x = C.input_variable(3, name='x')
    p = C.parameter((3,), init=1.0, name='p')
    f = C.plus(x * p, C.constant(1.0), name='f')
    assert f.output.owner.op_name == 'Plus' and f.output.owner.name == 'f'
    for v in (x, p, C.constant(2.0), C.placeholder()):
        with pytest.raises(RuntimeError, match="called owner\\(\\) on a variable that is not an output variable"):
            v.owner
    assert f.owner.name == 'f'  # a Function's owner is its output's


def test_a_function_has_no_type_attribute():
    f = C.sigmoid(C.input_variable(3))
    with pytest.raises(AttributeError):
        f.type
    assert str(f.output._type) == 'Tensor[3]'


def test_the_output_of_a_function_of_several_outputs_is_refused(capsys):
    x = C.input_variable(3, name='x')
    g = C.combine([C.sigmoid(x, name='s'), C.tanh(x, name='th')])
    with pytest.raises(RuntimeError, match="with more than one output cannot be implicitly converted to a "
                                           "Variable"):
        g.output
    assert "About to throw exception 'A Function instance 'Composite(Combine): Input('x', [#], [3]) -> " \
           "Output('s', [#], [3]), Output('th', [#], [3])' with more than one output" in capsys.readouterr().err
    with pytest.raises(AttributeError):
        g.shape


def _graph():
    x = C.input_variable(2, name='x')
    c = C.constant(np.ones(2, np.float32), name='c')
    p = C.parameter(2, init=1.0, name='p')
    h = x * c
    return x, c, p, h, C.reduce_sum(h * p)


X = np.array([[1, 2], [3, 4]], np.float32)


def test_grad_of_variables_without_a_gradient_is_refused(capsys):
    x, c, p, h, f = _graph()
    np.testing.assert_array_equal(f.grad({x: X}, wrt=[p]), [4, 6])
    for v in (c, x):
        with pytest.raises(ValueError, match="Gradient value incorrectly requested for Variable"):
            f.grad({x: X}, wrt=[v])
    for v in (h.output, C.parameter(2, name='q'), C.input_variable(2, needs_gradient=True)):
        with pytest.raises(ValueError, match="which is not a leaf input \\(Input, Parameter or Constant\\) of the "
                                             "Function"):
            f.grad({x: X}, wrt=[v])
    assert capsys.readouterr().err.count("About to throw exception 'Gradient") == 5
    # without wrt: the arguments that need a gradient, and there must be some
    with pytest.raises(ValueError, match="None of the Function '.*' arguments have 'needs_gradient == True'"):
        f.grad({x: X})


def test_grad_of_one_variable_named_twice_is_its_value():
    x, c, p, h, f = _graph()
    np.testing.assert_array_equal(f.grad({x: X}, wrt=[p, p]), [4, 6])  # one variable: its value, not a dict
    y = C.input_variable(2, needs_gradient=True, name='y')
    g = C.reduce_sum(y * p)
    both = g.grad({y: X}, wrt=[p, y, p])
    assert sorted(k.name for k in both) == ['p', 'y']
    np.testing.assert_array_equal(both[p], [4, 6])


def test_backward_refuses_what_cntk_refuses(capsys):
    x, c, p, h, f = _graph()
    state, _ = f.forward({x: X}, keep_for_backward={f.output})
    roots = {f.output: np.ones((2, 1), np.float32)}
    np.testing.assert_array_equal(f.backward(state, roots, variables={p})[p], [4, 6])
    with pytest.raises(ValueError, match="Gradient value incorrectly requested for Variable 'Constant\\('c'"):
        f.backward(state, roots, variables={c})
    with pytest.raises(ValueError, match="Gradient requested for Variable 'Parameter\\('q', \\[\\], \\[2\\]\\)' "
                                         "which is not a leaf input"):
        f.backward(state, roots, variables={C.parameter(2, name='q')})
    with pytest.raises(ValueError, match="Backward: List of inputs to compute gradients for, must not be empty"):
        f.backward(state, roots, variables=set())
    assert type(state).__name__ == 'BackPropState'


def test_evaluating_a_graph_with_unbound_placeholders():
    f = C.sigmoid(C.placeholder((2,)))
    with pytest.raises(RuntimeError, match="Unknown DataType"):
        f.eval({f.placeholders[0]: np.ones((1, 2), np.float32)})
    with pytest.raises(RuntimeError, match="Unknown DataType"):
        f.eval(np.ones((1, 2), np.float32))
    with pytest.raises(ValueError, match="function expects 1 arguments"):
        f.eval()


def test_set_attribute_refusals_are_runtime_errors():
    x = C.input_variable(2)
    d = C.dropout(x, 0.5)
    d.root_function.set_attribute('dropoutRate', 0.2)
    assert d.root_function.attributes['dropoutRate'] == 0.2
    with pytest.raises(RuntimeError, match="SetAttribute: 'rngOffset' is not supported \\(this attribute cannot be "
                                           "updated\\)"):
        d.root_function.set_attribute('rngOffset', 1)
    with pytest.raises(RuntimeError, match="Cannot set random seed on 'ReLU' function"):
        C.relu(x).root_function.set_attribute('rngSeed', 1)
    with pytest.raises(RuntimeError):
        C.relu(x).root_function.set_attribute('dropoutRate', 0.1)


def test_a_call_replacing_an_argument_by_a_function_lists_arguments_in_graph_order():
    x = C.input_variable(2, name='x')
    y = C.input_variable(2, name='y')
    f = C.plus(x, y * 2)
    assert [a.name for a in f(C.sigmoid(x), y).arguments] == ['x', 'y']   # CNTK 2.7's order (was y, x)
    assert [a.name for a in f(y, x).arguments] == ['y', 'x']
    g = C.Function(lambda a, b: b * 2 + a)                                 # a Python parameter order stays
    assert [a.name for a in g.arguments] == ['a', 'b']
    assert [a.name for a in g(x, y).arguments] == ['x', 'y']
