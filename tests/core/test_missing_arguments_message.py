"""Evaluating a Function without data for some of its inputs raises CNTK 2.7's error, announced on stderr: the
missing inputs (in the reverse of the Function's argument order, as CNTK lists them) and the requested outputs.
The expected texts are CNTK 2.7's for the same graphs (output uids aside, which differ)."""
import re

import numpy as np
import pytest

import cntk as C


def _message(fn, data, capfd):
    with pytest.raises(ValueError) as info:
        fn.eval(data)
    message = str(info.value).split("\n\n[CALL STACK]")[0]
    assert "About to throw exception '%s'" % message in capfd.readouterr().err
    return message


def test_the_missing_inputs_and_the_requested_outputs_are_named(capfd):
    x, y = C.input_variable(2, name='x'), C.input_variable(3, name='y')
    one = np.ones((2, 2), np.float32)
    message = _message(C.splice(x, C.reduce_sum(y), name='both'), {x: one}, capfd)
    assert message == ("Values for 1 required arguments 'Input('y', [#], [3])', that the requested output(s) "
                       "'Output('both', [#], [3])' depend on, have not been provided.")
    message = _message(C.combine([x * 2, C.reduce_sum(y, name='rs')]), {x: one}, capfd)
    assert re.fullmatch(re.escape("Values for 1 required arguments 'Input('y', [#], [3])', that the requested "
                                  "output(s) 'Output('ElementTimes") + r"\d+" +
                        re.escape("_Output_0', [#], [2]), Output('rs', [#], [])' depend on, have not been "
                                  "provided."), message)


def test_several_missing_inputs_come_in_reverse_argument_order(capfd):
    x, y, z = C.input_variable(2, name='x'), C.input_variable(3, name='y'), C.input_variable(3, name='z')
    k = C.plus(C.reduce_sum(z) + C.reduce_sum(y), x, name='k')
    assert [a.name for a in k.arguments] == ['z', 'y', 'x']
    assert _message(k, {x: np.ones((2, 2), np.float32)}, capfd) == (
        "Values for 2 required arguments 'Input('y', [#], [3]), Input('z', [#], [3])', that the requested output(s) "
        "'Output('k', [#], [2])' depend on, have not been provided.")


def test_extra_arguments_are_reported_on_stderr_each_time(capfd):
    # CNTK 2.7's Forward prints this line on stderr for every call given data for inputs its outputs do not need
    # (eval, forward, grad, Trainer, Evaluator), with the number of such inputs; nothing when all are needed
    x = C.input_variable(2, needs_gradient=True)
    y = C.input_variable(1)
    w = C.input_variable(3)
    z = C.layers.Dense(1)(x)
    data = {x: np.ones((3, 2), np.float32), y: np.zeros((3, 1), np.float32)}
    line = ("WARNING: Function::Forward provided values for (%d) extra arguments which are not required for "
            "evaluating the specified Function outputs!\n")
    z.eval({x: data[x]})
    assert capfd.readouterr().err == ""
    z.eval(data)
    z.eval({x: data[x], y: data[y], w: np.ones((3, 3), np.float32)})
    z.forward(data)
    z.grad(data, wrt=[x])
    C.Trainer(z, (C.reduce_sum(z), None), C.sgd(z.parameters, 0.1)).train_minibatch(data)
    C.Evaluator(C.reduce_sum(z)).test_minibatch(data)
    assert capfd.readouterr().err == line % 1 + line % 2 + line % 1 * 4
