"""gather's operand precisions as CNTK 2.7 types them: both operands are sanitized in the reference's type (numpy
data keep their float type), the result has the indices' type when they are not a Constant (a Constant reference
is converted to it, or refused at evaluation when that narrows it), and along an axis (CNTK's GatherOp reads the
reference through TransposeAxes) a Constant reference of another type than the indices is refused at once."""
import numpy as np
import pytest

import cntk as C


def _ref(dtype):
    return C.constant(np.arange(6, dtype=dtype).reshape(3, 2))


def _indices(dtype):
    return C.input_variable((2,), dtype=dtype)


def test_a_narrower_constant_reference_takes_the_indices_type():
    i = _indices(np.float64)
    f = C.gather(_ref(np.float32), i)
    assert f.dtype == np.float64
    out = f.eval({i: np.array([[0, 2]], np.float64)})
    assert out.dtype == np.float64 and out.ravel().tolist() == [0.0, 1.0, 4.0, 5.0]


@pytest.mark.parametrize("reference", [_ref(np.float64), np.arange(6, dtype=np.float64).reshape(3, 2)])
def test_a_wider_constant_reference_is_refused_at_evaluation(reference):
    i = _indices(np.float32)
    f = C.gather(reference, i)
    assert f.dtype == np.float32
    with pytest.raises(ValueError, match="Constant::Clone: Cannot clone Constant 'Constant\\(.*\\[3 x 2\\]\\)' with "
                                         "DataType 'Double' to DataType 'Float'"):
        f.eval({i: np.array([[0, 2]], np.float32)})


def test_numpy_indices_take_the_reference_type():
    f = C.gather(_ref(np.float32), np.array([0, 2], np.float64))
    assert f.dtype == np.float32 and f.eval().ravel().tolist() == [0.0, 1.0, 4.0, 5.0]


def test_constants_alone_of_two_types_are_refused_at_evaluation():
    f = C.gather(_ref(np.float32), C.constant([0, 2], dtype=np.float64))
    assert f.dtype == np.float64
    with pytest.raises(ValueError, match="an ComputationNodeBasePtr of mismatching precision was passed"):
        f.eval()


def test_along_an_axis_a_constant_reference_of_another_type_is_refused_while_building():
    with pytest.raises(ValueError, match="Primitive op 'Gather' passed operands 'Input.*, Constant.*' with different "
                                         "DataTypes 'Double' and 'Float'"):
        C.gather(_ref(np.float32), _indices(np.float64), axis=1)
    i = _indices(np.float32)
    assert C.gather(_ref(np.float32), i, axis=1).eval({i: np.array([[1, 0]], np.float32)}).shape == (1, 3, 2)


@pytest.mark.parametrize("reference, message", [
    (C.input_variable((3, 2), dtype=np.float64), "'Float' and 'Double'"),
    (C.parameter((3, 2), dtype=np.float16, init=1), "'Float' and 'Float16'"),
])
def test_other_operands_of_another_type_are_refused_while_building(reference, message):
    with pytest.raises(ValueError, match="Primitive op 'Gather' passed operands .* with different DataTypes "
                                         + message):
        C.gather(reference, _indices(np.float32))
