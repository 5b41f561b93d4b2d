"""The criteria CNTK 2.7 composes of primitives are blocks there, and here: op_name, inputs (captured constants
first, then the operands), block argument names, output shapes, values and gradients as CNTK 2.7 reports them."""
import numpy as np
import pytest

import cntk as C

Z = np.array([[1, 2, 3]], np.float32)
Y = np.array([[0, 1, 0]], np.float32)


def _operands():
    return C.input_variable(3, name='z', needs_gradient=True), C.input_variable(3, name='y')


# (criterion, op_name, captured constants, output shape, value, gradient with respect to z), from CNTK 2.7
CASES = [
    (lambda z, y: C.cross_entropy_with_softmax(z, y), "CrossEntropyWithSoftmax", 0, (1,), [[1.4076059]],
     [[0.09003058, -0.7552715, 0.665241]]),
    (lambda z, y: C.cross_entropy_with_softmax(z, y, axis=0), "CrossEntropyWithSoftmax", 0, (1,), [[1.4076059]],
     [[0.09003058, -0.7552715, 0.665241]]),
    (lambda z, y: C.squared_error(z, y), "SquaredError", 0, (), [11.], [[2., 2., 6.]]),
    (lambda z, y: C.classification_error(z, y), "ClassificationError", 1, (1,), [[1.]], [[0., 0., 0.]]),
    (lambda z, y: C.classification_error(z, y, axis=0), "ClassificationError", None, (), [1.], [[0., 0., 0.]]),
    (lambda z, y: C.binary_cross_entropy(z, y), "BinaryCrossEntropy", 3, (3,), [[13.862944, -0.69314766, 85.1]],
     [[1.048576e+06, -4.9999976e-01, 9.0878207e+36]]),
]


@pytest.mark.parametrize("make, op_name, n_constants, shape, value, gradient", CASES)
def test_a_criterion_is_cntks_block(make, op_name, n_constants, shape, value, gradient):
    z, y = _operands()
    f = make(z, y)
    root = f.root_function
    assert (root.op_name, root.is_block) == (op_name, True)
    assert [a.name for a in f.arguments] == ['z', 'y']
    assert [i.name for i in root.inputs[-2:]] == ['z', 'y']
    if n_constants is not None:
        assert len(root.inputs) == n_constants + 2 and all(i.is_constant for i in root.inputs[:-2])
    assert [(inner.name, outer.name) for inner, outer in root.block_arguments_mapping] == [('z', 'z'), ('y', 'y')]
    assert f.output.shape == shape
    np.testing.assert_allclose(f.eval({z: Z, y: Y}), value, rtol=1e-6)
    np.testing.assert_allclose(f.grad({z: Z, y: Y}, wrt=[z]), gradient, rtol=1e-6)


def test_a_criterion_takes_the_name_and_keeps_its_values_through_save_and_load(tmp_path):
    z, y = _operands()
    f = C.combine([C.cross_entropy_with_softmax(z, y, name='ce'), C.classification_error(z, y, name='err'),
                   C.squared_error(z, y, name='se')])
    assert f.find_by_name('ce').op_name == "CrossEntropyWithSoftmax"
    path = str(tmp_path / "criteria.model")
    f.save(path)
    g = C.load_model(path)
    assert [(o.name, o.owner.op_name, o.owner.is_block) for o in g.outputs] == [
        ('ce', 'CrossEntropyWithSoftmax', True), ('err', 'ClassificationError', True), ('se', 'SquaredError', True)]
    a, b = g.arguments
    values = g.eval({a: Z, b: Y})
    assert [np.asarray(values[o]).tolist() for o in g.outputs] == [
        np.asarray(v).tolist() for v in f.eval({z: Z, y: Y}).values()]


def test_combine_of_one_function_has_a_combine_root():
    x = C.input_variable(3)
    f = x * 2
    g = C.combine([f])
    assert g.root_function.op_name == "Combine" and g.output.uid == f.output.uid
    assert C.combine(f).root_function.op_name == "Combine"
    assert C.as_composite(f.root_function).root_function.op_name == "ElementTimes"
    np.testing.assert_array_equal(g.eval({x: Z}), 2 * Z)


def test_an_argument_feeding_both_operands_is_listed_once():
    x = C.input_variable(3, name='x')
    y = C.input_variable(3, name='y')
    # CNTK 2.7: ['x'], ['x'], ['y', 'x']
    assert [a.name for a in C.squared_error(x * 2, x * 3).arguments] == ['x']
    assert [a.name for a in C.squared_error(x, x).arguments] == ['x']
    assert [a.name for a in C.cross_entropy_with_softmax(y + x, x).arguments] == ['y', 'x']
