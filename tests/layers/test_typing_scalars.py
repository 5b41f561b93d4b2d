"""Type annotations of scalars and the default dtype of annotated arguments, as CNTK 2.7 prints and makes them."""
import numpy as np

import cntk as C
from cntk.layers.typing import ParameterTensor, Sequence, Tensor


def test_a_scalar_type_without_dtype_prints_float():
    assert str(Tensor[()]) == "float"
    assert str(ParameterTensor[()]) == "float"
    assert str(Sequence[float]) == "Sequence[float]"
    assert str(Sequence[np.float32]) == "Sequence[np.float32]"
    assert str(Sequence[np.float64]) == "Sequence[np.float64]"

    @C.Function
    def a(x: float):
        return x * 2
    assert str(a) == "ElementTimes(x: np.float32) -> np.float32"
    assert (a.arguments[0].shape, a.arguments[0].dynamic_axes) == ((), (C.Axis.default_batch_axis(),))


def test_annotated_arguments_take_the_default_dtype():
    with C.default_options(dtype=np.float64):
        @C.Function
        def d(x: Tensor[3]):
            return x * 2

        @C.Function
        def e(x: float):
            return x * 2
    assert str(d) == "ElementTimes(x: Tensor[np.float64,3]) -> Tensor[np.float64,3]"
    assert d.arguments[0].dtype == np.float64
    assert str(e) == "ElementTimes(x: np.float64) -> np.float64"
