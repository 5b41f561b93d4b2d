"""`from cntk.layers.blocks import _INFERRED` (CNTK's own BiDAF and ReasoNet examples build parameters of shape
`_INFERRED + (hidden_dim,)`): CNTK 2.7's value is the tuple (InferredDimension,) = (-1,)."""
import cntk as C
from cntk.layers.blocks import _INFERRED


def test_inferred_is_a_one_axis_tuple_of_the_inferred_dimension():
    assert _INFERRED == (C.InferredDimension,) == (-1,)


def test_parameter_with_a_leading_inferred_axis_takes_its_operand_dimension():
    W = C.parameter(_INFERRED + (3,), init=C.glorot_uniform())
    assert W.shape == (-1, 3)
    x = C.input_variable(5)
    C.times(x, W)
    assert W.shape == (5, 3)
