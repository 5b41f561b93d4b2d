"""UserFunction: Python forward/backward inside the torch graph."""
import numpy as np
import pytest

import cntk as C
from cntk.ops.functions import UserFunction


class Scale(UserFunction):
    def __init__(self, arg, factor=3.0, name='scale'):
        self.factor = factor
        super(Scale, self).__init__([arg], name=name)

    def infer_outputs(self):
        x = self.inputs[0]
        return [C.output_variable(x.shape, x.dtype, x.dynamic_axes)]

    def forward(self, argument, device=None, outputs_to_retain=None):
        return argument, argument * self.factor

    def backward(self, state, root_gradients):
        return root_gradients * self.factor


class AddSub(UserFunction):
    def __init__(self, a, b, name='addsub'):
        super(AddSub, self).__init__([a, b], name=name)

    def infer_outputs(self):
        a = self.inputs[0]
        return [C.output_variable(a.shape, a.dtype, a.dynamic_axes) for _ in range(2)]

    def forward(self, arguments, outputs, device=None, outputs_to_retain=None):
        outputs[self.outputs[0]] = arguments[0] + arguments[1]
        outputs[self.outputs[1]] = arguments[0] - arguments[1]

    def backward(self, state, root_gradients, variables):
        add, sub = root_gradients[self.outputs[0]], root_gradients[self.outputs[1]]
        if self.inputs[0] in variables:
            variables[self.inputs[0]] = add + sub
        if self.inputs[1] in variables:
            variables[self.inputs[1]] = add - sub


def test_forward_backward_single_input():
    x = C.input_variable(2, needs_gradient=True)
    f = C.user_function(Scale(x))
    data = np.array([[1, 2], [3, 4]], np.float32)
    np.testing.assert_allclose(f.eval({x: data}), 3 * data)
    np.testing.assert_allclose(f.grad({x: data}, wrt=[x]), np.full_like(data, 3))


def test_multi_output_gradients():
    a = C.input_variable(2, needs_gradient=True)
    b = C.input_variable(2, needs_gradient=True)
    f = C.user_function(AddSub(a, b))
    total = f.outputs[0] + 2 * f.outputs[1]
    data = {a: np.ones((1, 2), np.float32), b: np.full((1, 2), 5, np.float32)}
    np.testing.assert_allclose(total.eval(data), [[6 - 8, 6 - 8]])
    g = total.grad(data, wrt=[a, b])
    np.testing.assert_allclose(g[a], [[3, 3]])
    np.testing.assert_allclose(g[b], [[-1, -1]])


def test_clone_rebuilds_on_new_inputs():
    p = C.placeholder()
    f = C.user_function(Scale(p)) + 1
    x = C.input_variable(1)
    g = f.clone('share', {p: x})
    np.testing.assert_allclose(g.eval({x: np.array([[4]], np.float32)}), [[13]])


def test_parameter_gradient_through_udf():
    w = C.parameter((2,), init=1.0)
    x = C.input_variable(2)
    z = C.reduce_sum(C.user_function(Scale(w * x)))
    g = z.grad({x: np.array([[1, 2]], np.float32)}, wrt=[w])
    np.testing.assert_allclose(g, [3, 6])


class _PassBoth(UserFunction):
    """Two outputs, each typed like one input (infer_outputs copies the inputs' types, known or not)."""

    def __init__(self, x, y, name="pass_both"):
        super(_PassBoth, self).__init__([x, y], name=name)

    def infer_outputs(self):
        return [C.output_variable(i.shape, i.dtype, i.dynamic_axes) for i in self.inputs]

    def forward(self, arguments, outputs, device=None, outputs_to_retain=None):
        for o, a in zip(self.outputs, arguments):
            outputs[o] = a * 2

    def backward(self, state, root_gradients, variables):
        pass


def test_user_function_on_placeholders_has_the_outputs_infer_outputs_declares():
    # CNTK calls infer_outputs() on placeholder inputs too: the function has its outputs at once, of unknown type
    a, b = C.placeholder(), C.placeholder()
    f = C.user_function(_PassBoth(a, b))
    assert len(f.outputs) == 2 and f.outputs[0].shape == (-2,)
    x, y = C.input_variable(3), C.input_variable(2)
    g = f.clone("share", {a: x, b: y})
    assert [o.shape for o in g.outputs] == [(3,), (2,)]
    out = g.eval({x: np.ones((1, 3), np.float32), y: np.ones((1, 2), np.float32)})
    assert np.array_equal(out[g.outputs[0]], [[2., 2., 2.]]) and np.array_equal(out[g.outputs[1]], [[2., 2.]])


class _Counting(Scale):
    def __init__(self, arg, name='counting'):
        super(_Counting, self).__init__(arg, 2.0, name=name)
        self.calls = 0

    def forward(self, argument, device=None, outputs_to_retain=None):
        self.calls += 1
        return super(_Counting, self).forward(argument, device, outputs_to_retain)

    def serialize(self):
        return {'calls': self.calls}

    @staticmethod
    def deserialize(inputs, name, state):
        f = _Counting(inputs[0], name)
        f.calls = state['calls']
        return f


def test_a_user_function_is_found_by_name_as_a_plain_function(tmp_path):
    # as in CNTK 2.7: find_by_name gives a Function (not the Python class), whose serialize() is CNTK's
    # dictionary of a user function with the user's state under 'state' (CNTK's test_ext_train reads it so)
    x = C.input_variable(2, needs_gradient=True)
    udf = _Counting(x)
    z = C.user_function(udf) + C.parameter((2,), init=1)
    z.eval({x: np.ones((1, 2), np.float32)})
    found = z.find_by_name('counting')
    assert not isinstance(found, UserFunction) and isinstance(found, C.Function)
    assert found.uid == udf.uid and found.name == 'counting' and found.outputs[0] == udf.outputs[0]
    assert found.serialize() == {'class': '_Counting', 'module': __name__, 'op_name': udf.op_name,
                                 'state': {'calls': 1}, 'version': 1}
    assert found.calls == 1 and [f.uid for f in z.find_all_with_name('counting')] == [udf.uid]
    path = str(tmp_path / 'z.model')
    z.save(path)
    loaded = C.Function.load(open(path, 'rb').read())
    assert loaded.find_by_name('counting').serialize()['state'] == {'calls': 1}
    # the found Function evaluates as a Function does
    np.testing.assert_allclose(found.eval({x: np.ones((1, 2), np.float32)}), [[2, 2]])


class _Failing(UserFunction):
    def __init__(self, arg, where, name='failing'):
        super(_Failing, self).__init__([arg], name=name)
        self.where = where

    def infer_outputs(self):
        x = self.inputs[0]
        return [C.output_variable(x.shape, x.dtype, x.dynamic_axes)]

    def forward(self, argument, device=None, outputs_to_retain=None):
        if self.where == 'forward':
            raise KeyError('no such key')
        return None, argument

    def backward(self, state, root_gradients):
        if self.where == 'backward':
            raise ValueError('cannot')
        return root_gradients


def test_an_error_in_user_code_reaches_the_caller_as_a_runtime_error(capsys):
    # CNTK 2.7 runs a user function under its native engine, through SWIG directors: whatever the user's forward
    # or backward raises (or a forward that leaves an output out) is printed with its traceback and reaches eval,
    # grad and train_minibatch as RuntimeError('SWIG director method error.')
    x = C.input_variable(2, needs_gradient=True)
    data = {x: np.ones((1, 2), np.float32)}
    with pytest.raises(RuntimeError, match=r"^SWIG director method error\.$") as e:
        C.user_function(_Failing(x, 'forward')).eval(data)
    assert isinstance(e.value.__context__, KeyError)
    err = capsys.readouterr().err
    assert "Traceback (most recent call last):" in err and "KeyError: 'no such key'" in err
    with pytest.raises(RuntimeError, match=r"^SWIG director method error\.$"):
        C.user_function(_Failing(x, 'backward')).grad(data, wrt=[x])
    assert "ValueError: cannot" in capsys.readouterr().err
    p = C.parameter((2,), init=1)
    z = C.user_function(_Failing(x * p, 'backward'))
    trainer = C.Trainer(z, (C.reduce_sum(z), None), [C.sgd(z.parameters, C.learning_parameter_schedule(0.1))])
    with pytest.raises(RuntimeError):
        trainer.train_minibatch(data)


class _TwoOutputsOneReturned(UserFunction):
    def __init__(self, a, b, name='two'):
        super(_TwoOutputsOneReturned, self).__init__([a, b], name=name)

    def infer_outputs(self):
        return [C.output_variable(i.shape, i.dtype, i.dynamic_axes) for i in self.inputs]

    def forward(self, arguments, device=None, as_numpy=True):  # the single-output signature
        return None, arguments

    def backward(self, state, root_gradients, variables=None, as_numpy=True):
        return root_gradients


def test_a_two_output_user_function_in_a_recurrent_loop_that_fills_no_output_raises_runtime_error():
    # CNTK's test_udf_in_recurrent_loop: CNTK 2.7 raises RuntimeError here too
    x = C.sequence.input_variable(1)

    @C.layers.blocks.BlockFunction('NewLayer', 'NewLayer')
    def layer(h, c):
        return C.user_function(_TwoOutputsOneReturned(h, c, name='NewLayer'))

    with C.layers.default_options(initial_state=0.1):
        m = C.layers.Dense(1)(C.sequence.last(C.layers.Recurrence(C.layers.LSTM(5) >> layer)(x)))
    with pytest.raises(RuntimeError):
        m.eval([np.arange(10, dtype=np.float32)])
