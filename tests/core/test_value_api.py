"""Value and NDArrayView as CNTK 2.7 presents them (expected values from running it)."""
import numpy as np
import pytest
import scipy.sparse as sp

import cntk as C
from cntk import cntk_py


def test_ndarrayview_constructor_allocates_zeros():
    v = C.NDArrayView((2, 3), np.float32, C.cpu())
    np.testing.assert_array_equal(v.asarray(), np.zeros((2, 3), np.float32))
    assert C.NDArrayView((2,), cntk_py.DataType_Double).dtype is np.float64
    assert v.get_data_type() == cntk_py.DataType_Float
    assert repr(C.NDArrayView.from_dense(np.ones((2, 5, 3), np.float32))) == \
        "NDArrayView([2 x 5 x 3], %r)" % C.use_default_device()      # CPU, or GPU[0] where that is the default


def test_as_shape():
    v = C.NDArrayView.from_dense(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(v.as_shape((3, 2)).asarray(), np.arange(6).reshape(3, 2))
    with pytest.raises(ValueError, match="total size"):
        v.as_shape((4, 2))


def test_value_from_ndarrayview_and_repr():
    val = C.Value(C.NDArrayView.from_dense(np.ones((2, 3), np.float32)))
    assert val.shape == (2, 3) and val.is_valid
    assert repr(C.Value(np.ones((2, 5, 3), np.float32))) == "Value([2 x 5 x 3], %r)" % C.use_default_device()


def test_sequence_mask_is_int8():
    s = C.sequence.input_variable(3)
    v = C.Value.create(s, [np.ones((2, 3), np.float32), np.ones((4, 3), np.float32)])
    assert v.mask.dtype == np.int8
    np.testing.assert_array_equal(v.mask, [[2, 1, 0, 0], [2, 1, 1, 1]])


def test_one_hot_skip_gives_a_zero_sample():
    assert C.Value.ONE_HOT_SKIP == 4294967295
    a = C.Value.one_hot([[0, 1, C.Value.ONE_HOT_SKIP]], 3)
    i = C.sequence.input_variable(shape=(3,))
    np.testing.assert_array_equal((i * 1).eval({i: a}), [[[1, 0, 0], [0, 1, 0], [0, 0, 0]]])


def test_csr_sequences_make_a_sparse_value():
    s = C.sequence.input_variable(3)
    v = C.Value.create(s, [sp.csr_matrix(np.eye(3, dtype=np.float32)), sp.csr_matrix(np.ones((1, 3), np.float32))])
    assert v.is_sparse and v.shape == (2, 3, 3)


def test_random_samplers_take_the_default_options_dtype():
    with C.default_options(dtype=np.float64):
        assert C.random.uniform((2,), seed=1).dtype == np.float64
        assert C.sequence.input_variable(2).dtype == np.float64
    assert C.random.uniform((2,), seed=1).dtype == np.float32


def test_dynamic_axes_order_and_zero_d_float64_parameters():
    assert C.Axis.default_input_variable_dynamic_axes() == (C.Axis.default_batch_axis(),
                                                            C.Axis.default_dynamic_axis())
    assert C.parameter(init=np.asarray(2, dtype=np.float64)).dtype == np.float64



def test_variables_report_cntk_data_type_codes():
    assert C.input_variable(2).get_data_type() == C.cntk_py.DataType_Float == 1
    assert C.input_variable(2, dtype=np.float64).get_data_type() == C.cntk_py.DataType_Double == 2
    assert C.parameter((2,), init=np.zeros(2, np.float16)).get_data_type() == C.cntk_py.DataType_Float16 == 4
    assert C.constant(np.zeros(2), dtype=np.float64).get_data_type() == 2


def test_values_a_function_returns_are_temporaries_until_its_next_call():
    # CNTK 2.7: the Values eval/forward/grad return (as_numpy=False) are valid until the next such call of the
    # same Function; reading one afterwards raises RuntimeError and is_valid turns False
    x = C.input_variable(2, needs_gradient=True)
    op = x + 1
    data = {x: np.ones((1, 2), np.float32)}
    r1 = op.eval(data, as_numpy=False)
    np.testing.assert_array_equal(r1.asarray(), [[2, 2]])
    r2 = op.eval(data, as_numpy=False)
    assert not r1.is_valid and r2.is_valid and r1.shape == (1, 2)
    for read in (lambda: r1.asarray(), lambda: r1.data, lambda: r1.as_sequences(), lambda: r1.is_sparse):
        with pytest.raises(RuntimeError, match="This Value object is invalid"):
            read()
    (x * 2).eval(data, as_numpy=False)  # another Function leaves op's Values alone
    assert r2.is_valid
    op.forward(data, as_numpy=False)
    assert not r2.is_valid
    g = (x * x).grad(data, as_numpy=False)
    sq = x * x
    g1 = sq.grad(data, as_numpy=False)
    g2 = sq.grad(data, as_numpy=False)
    assert g.is_valid and not g1.is_valid and g2.is_valid
    assert C.Value(np.ones((1, 2), np.float32)).is_valid  # a Value the user makes is not a temporary


def test_cntks_warnings_for_data_that_costs_a_conversion():
    # CNTK 2.7 warns once per numpy array that is not C contiguous, and once per call when a batch for an input
    # without a sequence axis comes as a list of more than one sample
    import warnings
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = C.input_variable(2)
    s = C.sequence.input_variable(2)

    def caught(f):
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            f()
        return [(w.category, str(w.message)[:30]) for w in ws]
    nc = (RuntimeWarning, "data is not C contiguous; rear")
    lst = (UserWarning, "you provided the minibatch dat")
    assert caught(lambda: (x + 1).eval({x: a.T})) == [nc]
    assert caught(lambda: (x + 1).eval({x: [a.T[0], a.T[1]]})) == [lst, nc, nc]
    assert caught(lambda: (s + 1).eval({s: [a.T, a.T]})) == [nc, nc]
    assert caught(lambda: C.NDArrayView.from_dense(a.T)) == [nc]
    assert caught(lambda: C.constant(a.T)) == [nc] and caught(lambda: C.parameter(init=a.T)) == [nc]
    assert caught(lambda: (x + 1).eval({x: np.ascontiguousarray(a.T)})) == []
    assert caught(lambda: (x + 1).eval({x: [[1.0, 2.0], [3.0, 4.0]]})) == [lst]
    # a list of one sample is not warned about (CNTK 2.7: `len(data) > 1`), e.g. CNTK_105's model.eval([image])
    assert caught(lambda: (x + 1).eval({x: [[1.0, 2.0]]})) == []
    assert caught(lambda: (x + 1).eval({x: [np.ones(2, np.float32)]})) == []
    # an input without dynamic axes copies the array into an NDArrayView first: warned too, also before its
    # shape is refused (an ONNX model's static input fed a pandas frame's values)
    st = C.input_variable((1, 3), dynamic_axes=[])
    assert caught(lambda: (st * 2).eval({st: np.asfortranarray(np.ones((2, 3), np.float32))[:1]})) == [nc]
    assert caught(lambda: pytest.raises(ValueError, (st * 2).eval, {st: np.asfortranarray(np.ones((4, 3), np.float32))})) == [nc]
    assert caught(lambda: (st * 2).eval({st: np.ones((1, 3), np.float32)})) == []


def test_sparse_values_read_back_as_csr_matrices():
    # CNTK 2.7: a sparse Value (or NDArrayView) of rank 2 reads back as a CSR matrix, and as_sequences gives one
    # CSR matrix per sequence (a batch without a sequence axis as one)
    seq = C.sequence.input_variable(3, is_sparse=True)
    val = C.asvalue(seq, [sp.csr_matrix(np.array([[1, 0, 2], [5, 0, 1]], np.float32)),
                          sp.csr_matrix(np.array([[0, 0, 1]], np.float32))])
    parts = val.as_sequences(seq)
    assert [type(p) for p in parts] == [sp.csr_matrix] * 2 and [p.shape for p in parts] == [(2, 3), (1, 3)]
    assert parts[0].toarray().tolist() == [[1, 0, 2], [5, 0, 1]]
    x = C.input_variable(3, is_sparse=True)
    val = C.asvalue(x, sp.csr_matrix(np.array([[1, 0, 2], [5, 0, 1]], np.float32)))
    for v in (val, val.data):
        assert isinstance(v.asarray(), sp.csr_matrix) and v.asarray().shape == (2, 3)
    assert [p.shape for p in val.as_sequences(x)] == [(2, 3)]
    d = C.input_variable(3)
    assert isinstance(C.asvalue(d, np.ones((2, 3), np.float32)).asarray(), np.ndarray)


def test_a_numpy_evaluation_erases_the_values_an_earlier_one_returned():
    x = C.input_variable(2)
    f = x * 2
    kept = f.eval({x: np.ones((1, 2), np.float32)}, as_numpy=False)
    assert kept.is_valid
    np.testing.assert_array_equal(f.eval({x: np.ones((1, 2), np.float32)}), [[2, 2]])
    assert not kept.is_valid
