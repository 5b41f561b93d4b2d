"""cntk.cntk_py's native op constructors that scripts import (``from cntk.cntk_py import squared_error``, as a
third-party U-Net did): values on fixed inputs, the optional and required names, and the overload errors, golden
from CNTK 2.7 (its natives return a bare Function; the values are those of cntk.as_composite of it)."""
import numpy as np
import pytest

import cntk as C
from cntk import cntk_py

NAN = float("nan")
X = np.array([[0.5, -0.25, 0.75]], np.float32)
Y = np.array([[0.25, 0.5, -0.5]], np.float32)
GOLDEN = {
    'abs': [[0.5, 0.25, 0.75]],
    'acos': [[1.0471999645233154, 1.8234800100326538, 0.7227299809455872]],
    'alias': [[0.5, -0.25, 0.75]],
    'asin': [[0.5235999822616577, -0.2526800036430359, 0.8480600118637085]],
    'asinh': [[0.48120999336242676, -0.24747000634670258, 0.693149983882904]],
    'atan': [[0.4636499881744385, -0.24498000741004944, 0.6434999704360962]],
    'atanh': [[0.549310028553009, -0.25540998578071594, 0.9729599952697754]],
    'binary_cross_entropy': [[0.6929900050163269, 0.7315499782562256, 0.8537099957466125]],
    'ceil': [[1.0, -0.0, 1.0]],
    'cos': [[0.8775799870491028, 0.9689099788665771, 0.731689989566803]],
    'cosh': [[1.1276299953460693, 1.0314099788665771, 1.2946799993515015]],
    'cosine_distance': [-0.5345199704170227],
    'element_and': [[1.0, 0.0, 0.0]],
    'element_divide': [[2.0, -0.5, -1.5]],
    'element_max': [[0.5, 0.5, 0.75]],
    'element_min': [[0.25, -0.25, -0.5]],
    'element_not': [[0.0, 1.0, 0.0]],
    'element_or': [[1.0, 1.0, 1.0]],
    'element_times': [[0.125, -0.125, -0.375]],
    'element_xor': [[0.0, 1.0, 1.0]],
    'elu': [[0.5, -0.22120000422000885, 0.75]],
    'equal': [[0.0, 0.0, 0.0]],
    'exp': [[1.6487200260162354, 0.7788000106811523, 2.117000102996826]],
    'floor': [[0.0, -1.0, 0.0]],
    'greater': [[1.0, 0.0, 1.0]],
    'greater_equal': [[1.0, 0.0, 1.0]],
    'hardmax': [[0.0, 0.0, 1.0]],
    'less': [[0.0, 1.0, 0.0]],
    'less_equal': [[0.0, 1.0, 0.0]],
    'log': [[-0.693149983882904, -85.0999984741211, -0.2876800000667572]],
    'log_add_exp': [[1.0759400129318237, 0.8868700265884399, 1.0019299983978271]],
    'log_softmax': [[-1.0139199495315552, -1.7639199495315552, -0.7639200091362]],
    'minus': [[0.25, -0.75, 1.25]],
    'negate': [[-0.5, 0.25, -0.75]],
    'not_equal': [[1.0, 1.0, 1.0]],
    'plus': [[0.75, 0.25, 0.25]],
    'pow': [[0.8409000039100647, NAN, 1.1547000408172607]],
    'pre_lu': [[0.25, 0.5, -0.375]],
    're_lu': [[0.5, 0.0, 0.75]],
    'reciprocal': [[2.0, -4.0, 1.3333300352096558]],
    'round': [[1.0, 0.0, 1.0]],
    'sigmoid': [[0.6224600076675415, 0.4378199875354767, 0.6791800260543823]],
    'sin': [[0.4794299900531769, -0.24740000069141388, 0.6816400289535522]],
    'sinh': [[0.5210999846458435, -0.2526099979877472, 0.8223199844360352]],
    'softmax': [[0.36278998851776123, 0.1713699996471405, 0.46584001183509827]],
    'softplus': [[0.9740800261497498, 0.5759400129318237, 1.13687002658844]],
    'softsign': [[0.3333300054073334, -0.20000000298023224, 0.4285700023174286]],
    'sqrt': [[0.7071099877357483, 0.0, 0.8660299777984619]],
    'square': [[0.25, 0.0625, 0.5625]],
    'squared_error': [2.1875],
    'stop_gradient': [[0.5, -0.25, 0.75]],
    'tan': [[0.5462999939918518, -0.25534000992774963, 0.9315999746322632]],
    'tanh': [[0.462119996547699, -0.24492000043392181, 0.6351500153541565]],
}
UNARY = {"abs", "acos", "alias", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "element_not", "elu", "exp",
         "floor", "hardmax", "log", "log_softmax", "negate", "re_lu", "reciprocal", "round", "sigmoid", "sin", "sinh",
         "softmax", "softplus", "softsign", "sqrt", "square", "stop_gradient", "tan", "tanh"}


def _operands(name, x, y):
    if name in UNARY:
        return (x,)
    if name == "binary_cross_entropy":
        return (C.sigmoid(x), C.sigmoid(y))
    return (x, y)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_native_op_values(name):
    x = C.input_variable(3, name="x")
    y = C.input_variable(3, name="y")
    args = _operands(name, x, y)
    forms = [args + ("nm",)] if name in ("element_max", "element_min") else [args, args + ("nm",)]
    for form in forms:
        f = C.as_composite(getattr(cntk_py, name)(*form))
        value = f.eval({a: (X if a.name == "x" else Y) for a in f.arguments})
        np.testing.assert_allclose(np.asarray(value), GOLDEN[name], rtol=2e-5, atol=2e-5)
    assert f.root_function.name == "nm" or f.name == "nm"


def test_native_op_argument_errors():
    x = C.input_variable(3)
    y = C.input_variable(3)
    for bad in [(x, 2.0), (x,), (x, np.ones(3, np.float32)), (x, y, 3)]:
        with pytest.raises(NotImplementedError, match="overloaded function 'plus'"):
            cntk_py.plus(*bad)
    with pytest.raises(NotImplementedError):
        cntk_py.exp(3.0)
    with pytest.raises(TypeError, match=r"element_max\(\) takes exactly 3 arguments \(2 given\)"):
        cntk_py.element_max(x, y)


def test_a_native_loss_trains():
    x = C.input_variable(3, name="x")
    y = C.input_variable(3, name="y")
    p = C.parameter(3, init=1.0)
    loss = cntk_py.squared_error(x * p, y, "se")
    trainer = C.Trainer(None, (loss, loss), [C.sgd([p], 0.1)])
    trainer.train_minibatch({x: X, y: Y})
    assert trainer.previous_minibatch_loss_average == pytest.approx(2.1875, rel=1e-6)
