"""update_signature/declare_args, Variable._type, SequenceOver types and the python_operand_order option as in
CNTK 2.7."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import cntk as C
from cntk.default_options import set_global_option
from cntk.layers.typing import Sequence, SequenceOver, Tensor


def test_update_signature_types_in_place_and_returns_none():
    f = C.layers.Dense(3)
    assert f.update_signature(Tensor[2]) is None
    assert f.arguments[0].shape == (2,) and f.output.shape == (3,)
    g = C.Function(lambda a, b: a + b)
    assert g.update_signature(2, None) is None  # None leaves an argument untyped
    assert [a.shape for a in g.arguments] == [(2,), (-2,)]
    with pytest.raises(TypeError, match="update_signature\\(\\) expects arguments of type int, tuple of int, or "
                                        "Type.Variable"):
        C.layers.Dense(3).update_signature([2])


def test_declare_args_is_the_deprecated_form():
    f = C.layers.Dense(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert f.declare_args(4) is None
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    assert f.arguments[0].shape == (4,)
    with pytest.raises(TypeError, match=r"CNTK Function.declare_args\(\) expected 1 arguments, got 2"):
        C.layers.Dense(3).declare_args(4, 5)


def test_variable_type_is_a_record():
    x = C.input_variable(13, name='my_input')
    t = x._type
    assert (t.shape, t.dynamic_axes, t.is_sparse, t.needs_gradient) == ((13,), (C.Axis.default_batch_axis(),),
                                                                        False, False)
    assert str(C.sequence.input_variable(3)._type) == "Sequence[Tensor[3]]"


def test_sequence_over_lists_the_batch_axis_first():
    tp = SequenceOver[C.Axis('input')][Tensor[9]]
    assert [str(a.name) for a in tp.dynamic_axes] == ['defaultBatchAxis', 'input']
    assert [str(a.name) for a in Sequence[Tensor[9]].dynamic_axes] == ['defaultBatchAxis', 'defaultDynamicAxis']


def test_a_type_passed_as_an_operand_is_refused_with_cntks_message():
    with pytest.raises(ValueError, match=r"Input is a type object \(Tensor\[32\]\). Did you mean to pass "
                                         r"'input_variable\(\*\*Tensor\[32\]\)'\?"):
        C.sigmoid(Tensor[32])


def test_arguments_in_cpp_order_when_python_operand_order_is_off():
    a = C.input_variable((3, 4), name='a')
    b = C.input_variable((4, 5), name='b')
    c = C.times(a, b)
    assert [v.name for v in c.arguments] == ['a', 'b']
    set_global_option('python_operand_order', False)
    try:
        assert [v.name for v in c.arguments] == ['b', 'a']
    finally:
        set_global_option('python_operand_order', True)


def test_value_of_a_csr_matrix_is_sparse():
    y = sp.csr_matrix(np.array([[0, 1], [1, 0], [1, 0]], np.float32))
    v = C.Value(y)
    assert v.is_sparse and v.shape == (3, 2)
    s = C.io.MinibatchSourceFromData(dict(x=C.Value(np.ones((3, 2), np.float32)), y=v))
    d = s.next_minibatch(2)[s.streams['y']]
    np.testing.assert_array_equal(d.data.asarray().todense(), [[0, 1], [1, 0]])
