"""How CNTK 2.7 types an operation on a Constant of another precision than its other operands."""
import numpy as np
import pytest

import cntk as C


def test_the_result_takes_the_dtype_of_the_operands_that_are_not_constants():
    x = C.input_variable((5, 5))
    data = np.random.rand(1, 5, 5).astype(np.float32)
    narrowing = C.constant(np.triu(np.ones(5))) * x           # a float64 Constant with float32 data
    assert narrowing.dtype == np.float32                        # CNTK 2.7: typed by the Input
    with pytest.raises(ValueError, match="Cannot clone Constant .* with DataType 'Double' to DataType 'Float'"):
        narrowing.eval({x: data})
    widening = C.constant(np.ones((5, 5), np.float32)) * C.input_variable((5, 5), dtype=np.float64)
    assert widening.dtype == np.float64                        # a float32 Constant is widened, as in CNTK
    assert widening.eval({widening.arguments[0]: np.ones((1, 5, 5))}).dtype == np.float64
    converted = x * np.triu(np.ones(5))                         # numpy data takes the Input's dtype
    assert converted.dtype == np.float32
    np.testing.assert_allclose(converted.eval({x: data})[0], data[0] * np.triu(np.ones(5)), rtol=1e-6)
    # Constants alone: the first one's dtype (CNTK 2.7: float64, then float32)
    assert (C.constant(np.ones(2)) + C.constant(np.ones(2, np.float32))).dtype == np.float64
    assert (C.constant(np.ones(2, np.float32)) + C.constant(np.ones(2))).dtype == np.float32
