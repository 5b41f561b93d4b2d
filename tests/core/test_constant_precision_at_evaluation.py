"""When a graph is evaluated, an op computes in its operands' precision as CNTK 2.7 compiles it (the first operand
in CNTK's order that is not a Constant): a Constant of a narrower type is converted, one of a wider type refused
(Constant::Clone), and Constants alone of different types refused too; each error is announced on stderr. The
result types are CNTK's: times(x, W) is CNTK's Times(W, x)."""
import numpy as np
import pytest

import cntk as C

C32, C64 = (lambda: C.constant(np.ones((2, 2), np.float32))), (lambda: C.constant(np.ones((2, 2), np.float64)))


def test_a_narrower_constant_is_converted_for_a_matrix_product():
    x = C.input_variable((2,), dtype=np.float64)
    f = C.times(x, C32())
    assert f.dtype == np.float64
    out = f.eval({x: np.ones((1, 2), np.float64)})
    assert out.dtype == np.float64 and out.tolist() == [[2.0, 2.0]]


@pytest.mark.parametrize("build", [lambda x: C.times(x, C64()), lambda x: C.splice(C.constant(np.ones(2)), x)])
def test_a_wider_constant_is_refused_at_evaluation(build, capfd):
    x = C.input_variable((2,), dtype=np.float32)
    f = build(x)
    assert f.dtype == np.float32
    with pytest.raises(ValueError, match="Constant::Clone: Cannot clone Constant .* with DataType 'Double' to "
                                         "DataType 'Float'"):
        f.eval({x: np.ones((1, 2), np.float32)})
    assert "About to throw exception 'Constant::Clone" in capfd.readouterr().err


@pytest.mark.parametrize("build, dtype", [(lambda: C.plus(C32(), C64()), np.float32),
                                          (lambda: C.times(C32(), C64()), np.float64)])
def test_constants_alone_of_two_types_are_refused_at_evaluation(build, dtype):
    f = build()
    assert f.dtype == dtype
    with pytest.raises(ValueError, match="an ComputationNodeBasePtr of mismatching precision was passed"):
        f.eval()


def test_operands_of_two_types_are_refused_and_announced_while_building(capfd):
    x = C.input_variable((2,), dtype=np.float32)
    with pytest.raises(ValueError, match="Primitive op 'Times' passed operands 'Parameter.*, Input.*' with different "
                                         "DataTypes 'Double' and 'Float'"):
        C.times(x, C.parameter((2, 2), dtype=np.float64, init=1))
    assert "About to throw exception 'Primitive op 'Times'" in capfd.readouterr().err
