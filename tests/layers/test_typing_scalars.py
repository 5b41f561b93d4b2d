"""Type annotations of scalars and the default dtype of annotated arguments, as CNTK 2.7 prints and makes them."""
import numpy as np

import cntk as C
from cntk.layers.typing import ParameterTensor, Sequence, SequenceOver, SparseTensor, Tensor


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


def test_a_type_record_reprs_its_fields_as_cntk_27_stores_them():
    # golden reprs from CNTK 2.7: its records are dicts whose repr shows the fields; str() is the written type
    assert repr(Tensor[4]) == "{'shape': (4,), 'is_sparse': False, 'dynamic_axes': [Axis('defaultBatchAxis')]}"
    assert repr(SparseTensor[10]) == "{'shape': (10,), 'is_sparse': True, 'dynamic_axes': [Axis('defaultBatchAxis')]}"
    assert repr(ParameterTensor[10]) == "{'shape': (10,), 'is_sparse': False, 'dynamic_axes': []}"
    assert repr(Sequence[Tensor[4]]) == ("{'shape': (4,), 'is_sparse': False, 'dynamic_axes': (Axis('defaultBatchAxis'), "
                                         "Axis('defaultDynamicAxis'))}")
    assert repr(SequenceOver[C.Axis('T')][Tensor[2]]) == ("{'shape': (2,), 'is_sparse': False, 'dynamic_axes': "
                                                          "[Axis('defaultBatchAxis'), Axis('T')]}")
    assert (str(Tensor[4, 5]), str(Sequence[Tensor[4]])) == ("Tensor[4,5]", "Sequence[Tensor[4]]")
    assert Tensor[3] == Tensor[3] and Tensor[3] != SparseTensor[3]
