"""NDArrayView, Value and dtype handling as CNTK 2.7 does them: copies unless borrowed, the element types its
native code takes, the errors of its constructors, masks only where sequences need one, and the dtypes
``dtype=`` arguments accept. Expected values: CNTK 2.7, probed on the same calls."""
import numpy as np
import pytest
import scipy.sparse as sp

import cntk as C

NATIVE_TYPES = "NumPy array of type int8, int16, float16, float32 or float64 expected"


def test_from_dense_copies_unless_borrowed():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    copied = C.NDArrayView.from_dense(a)
    borrowed = C.NDArrayView.from_dense(a, borrow=True)
    a[0, 0] = 100
    assert copied.asarray()[0, 0] == 0 and borrowed.asarray()[0, 0] == 100
    value = C.Value(a)
    a[0, 1] = 200
    assert value.asarray()[0, 1] == 1


def test_native_element_types_and_constructor_errors():
    for dt in (np.int8, np.int16, np.float16, np.float64):
        assert C.NDArrayView.from_dense(np.ones(2, dt)).dtype == dt
    for dt in (np.int32, np.int64, np.uint8, np.bool_):
        with pytest.raises(RuntimeError, match=NATIVE_TYPES):
            C.NDArrayView.from_dense(np.ones(2, dt))
    with pytest.raises(RuntimeError, match=NATIVE_TYPES):
        C.NDArrayView.from_csr(sp.csr_matrix(np.eye(2, dtype=np.int32)))
    with pytest.raises(RuntimeError, match=NATIVE_TYPES):
        C.Value(np.ones((2, 3), np.int64))
    with pytest.raises(TypeError, match="data must be of type numpy.ndarray"):
        C.NDArrayView.from_dense([1.0])
    with pytest.raises(TypeError, match='data type "<class \'float\'>" is not supported'):
        C.NDArrayView.from_data(3.0)
    with pytest.raises(TypeError, match='data type "<class \'list\'>" is not supported'):
        C.NDArrayView.from_data([1.0])
    assert C.NDArrayView.from_data(np.float32(3)).shape == ()
    with pytest.raises(TypeError, match="only CSR is supported as of now"):
        C.NDArrayView.from_data(sp.coo_matrix(np.eye(2, dtype=np.float32)))
    m = sp.csr_matrix(np.eye(3, dtype=np.float32))
    assert C.NDArrayView.from_csr(m, shape=(1, 3, 3)).shape == (1, 3, 3)
    with pytest.raises(ValueError, match="csr_matrix row size \\(3\\) does not match the least significant axis "
                                         "dimension \\(1\\)"):
        C.NDArrayView.from_csr(m, shape=(9, 1))
    with pytest.raises(ValueError, match="csr_matrix total size \\(9\\) does not match the total size \\(6\\)"):
        C.NDArrayView.from_csr(m, shape=(2, 3))
    with pytest.raises(NotImplementedError, match="overloaded function 'new_Value'"):
        C.Value([[1.0, 2.0]])
    with pytest.raises(RuntimeError, match="Unknown DataType"):
        C.NDArrayView((2,), None)


def test_a_value_has_a_mask_only_where_sequences_need_one():
    x = C.sequence.input_variable(3)
    y = C.input_variable(3)
    no_mask = [C.Value.create(x, [np.ones((2, 3), np.float32)] * 2), C.Value.create(x, np.ones((2, 2, 3), np.float32)),
               C.Value.create(y, np.ones((2, 3), np.float32)), C.Value(np.ones((2, 3), np.float32)),
               C.Value.one_hot([[1, 2], [0, 1]], 4), (x * 1).eval({x: [np.ones((2, 3), np.float32)] * 2},
                                                                 as_numpy=False)]
    for v in no_mask:
        with pytest.raises(AttributeError):
            v.mask
        assert v.masked_count() == 0
    ragged = C.Value.create(x, [np.ones((2, 3), np.float32), np.ones((1, 3), np.float32)])
    np.testing.assert_array_equal(ragged.mask, [[2, 1], [2, 0]])
    assert ragged.masked_count() == 1
    continued = C.Value.create(x, [np.ones((2, 3), np.float32)], seq_starts=[False])
    np.testing.assert_array_equal(continued.mask, [[1, 1]])


@pytest.mark.filterwarnings("ignore:your data is of type")
def test_fed_arrays_of_other_integer_types_than_int64_are_refused():
    x = C.input_variable(2, name='x')
    f = x * 1
    for dt in (np.int64, np.bool_, np.float16, np.float64):
        np.testing.assert_array_equal(f.eval({x: np.array([[1, 1]], dtype=dt)}), [[1, 1]])
    for dt in (np.int32, np.uint8, np.int8):
        with pytest.raises(ValueError, match="only integer, bool, float32, float64 and float16 are supported, you "
                                             "gave %s" % np.dtype(dt)):
            f.eval({x: np.array([[1, 2]], dtype=dt)})
    np.testing.assert_array_equal(f.eval({x: [[1, 2]]}), [[1, 2]])  # Python numbers take the input's type


@pytest.mark.parametrize("dtype, expected", [
    (float, np.float64), (int, np.float32), ('float', np.float32), ('double', np.float64), (np.float16, np.float16),
    (np.dtype('float64'), np.float64), (np.dtype('int32'), np.float32), (np.int8, np.int8), (None, np.float32)])
def test_dtype_arguments_as_cntk_reads_them(dtype, expected):
    assert C.input_variable(2, dtype=dtype).dtype == expected
    assert C.parameter(2, dtype=dtype).dtype == expected
    assert C.constant(1.0, shape=(2,), dtype=dtype).dtype == expected


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, bool, 'int32', 'foo'])
def test_dtype_arguments_cntk_refuses(dtype):
    for make in (lambda: C.input_variable(2, dtype=dtype), lambda: C.parameter(2, dtype=dtype),
                 lambda: C.constant(1.0, shape=(2,), dtype=dtype), lambda: C.NDArrayView((2,), dtype)):
        with pytest.raises(ValueError, match="is not supported"):
            make()


def test_setting_a_parameters_or_constants_value():
    p = C.parameter((2, 3), init=0.5, name='p')
    p.value = np.full((2, 3), 2.0)  # float64: converted
    assert p.value.dtype == np.float32 and p.value[0, 0] == 2
    p.value = C.NDArrayView.from_dense(np.zeros((2, 3), np.float32))
    assert p.value.sum() == 0
    with pytest.raises(RuntimeError, match="Variable 'Parameter\\('p', \\[\\], \\[2 x 3\\]\\)' SetValue\\(\\): "
                                           "'source' shape '\\[3 x 2\\]' differs 'destination' shape '\\[2 x 3\\]'"):
        p.value = np.ones((3, 2), np.float32)  # was silently reshaped
    for val in ([[1, 2, 3], [4, 5, 6]], 3.0):
        with pytest.raises(TypeError, match="Unsupported value type"):
            p.value = val
    c = C.constant(np.zeros((2, 2), np.float32))
    c.value = np.ones((2, 2), np.float32)
    assert c.value.sum() == 4
    with pytest.raises(RuntimeError, match="SetValue"):
        c.value = np.ones(4, np.float32)
