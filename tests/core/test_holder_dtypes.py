"""Which precision a Parameter or Constant takes from its value (dtypes as real CNTK 2.7 reports them)."""
import numpy as np

import cntk as C


def test_the_classes_store_float32_unless_told_otherwise():
    assert C.Constant(np.eye(3)).dtype == np.float32          # CNTK's CMUDict example: times(input, Constant(eye))
    assert C.Parameter(init=np.ones(3)).dtype == np.float32
    assert C.Constant(np.array(2.0)).dtype == np.float32
    assert C.Constant(np.eye(2), dtype=np.float64).dtype == np.float64
    with C.default_options(dtype=np.float64):
        assert C.Parameter(init=np.ones(3, np.float32)).dtype == np.float64
        assert C.Constant(3).dtype == np.float64


def test_the_lower_case_functions_keep_a_numpy_arrays_precision():
    assert C.constant(np.ones(3)).dtype == np.float64
    assert C.parameter(init=np.ones(3)).dtype == np.float64
    assert C.constant([1.0, 2.0]).dtype == np.float32


def test_a_float64_constant_class_value_mixes_with_float32_data():
    x = C.input_variable(3, is_sparse=True)
    out = C.times(x, C.Constant(np.eye(3))).eval({x: C.Value.one_hot([[1]], 3)})
    assert out.dtype == np.float32 and out.ravel().tolist() == [0, 1, 0]


def test_data_type_unknown_holders_take_the_type_of_their_first_op():
    # CNTK 2.7: a Parameter or Constant made with DataType_Unknown (0) reports 0 until an op uses it
    assert C.parameter((2,), init=C.glorot_uniform()).get_data_type() == C.cntk_py.DataType_Float
    assert C.parameter((2,), init=1, dtype=C.cntk_py.DataType_Unknown).get_data_type() == 0
    assert C.constant(1, dtype=C.cntk_py.DataType_Unknown).get_data_type() == 0
    x = C.input_variable((1,), dtype=np.float64)
    p = C.parameter((C.InferredDimension, 1), init=C.glorot_uniform(), dtype=C.cntk_py.DataType_Unknown)
    assert p.get_data_type() == C.cntk_py.DataType_Unknown
    f = C.times(x, p)
    assert p.dtype == np.float64 and p.shape == (1, 1) and f.dtype == np.float64
    assert f.eval({x: np.ones((1, 1))}).dtype == np.float64
    q = C.parameter((2, 3), init=C.glorot_uniform(), dtype=0)
    assert C.times(C.input_variable(2), q).dtype == np.float32 and q.dtype == np.float32
