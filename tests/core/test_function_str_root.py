"""str(Function) names a composite after its root as CNTK 2.7 does (strings printed by CNTK 2.7): when the
composite's inputs and the root's agree pairwise, a Combine root too; where @Function had to put the arguments in
the Python order (CNTK reads them through a block then), "Composite"."""
import cntk as C
from cntk.layers.typing import Tensor


def test_combine_roots_name_the_composite():
    x = C.input_variable(2, name='x')
    y = C.input_variable(2, name='y')
    assert str(C.combine([x])) == "Combine(x: Tensor[2]) -> Tensor[2]"
    assert str(C.combine([x, y])) == "Combine(x: Tensor[2], y: Tensor[2]) -> Tuple[Tensor[2], Tensor[2]]"
    assert str(C.combine([y, x])) == "Combine(y: Tensor[2], x: Tensor[2]) -> Tuple[Tensor[2], Tensor[2]]"
    assert str(C.combine([x + y, x])) == "Composite(x: Tensor[2], y: Tensor[2]) -> Tuple[Tensor[2], Tensor[2]]"
    assert str(C.layers.identity) == "Combine(keep: Sequence[tensor]) -> Sequence[tensor]"
    assert str(C.layers.identity(x)) == "Combine(x: Tensor[2]) -> Tensor[2]"

    @C.Function
    def g(a):
        return C.combine([a])
    assert str(g) == "Combine(a: Sequence[tensor]) -> Sequence[tensor]"


def test_arguments_put_in_python_order_make_a_composite():
    @C.Function
    def f(a, b):
        return C.combine([b, a])
    assert str(f) == "Composite(a: Sequence[tensor], b: Sequence[tensor]) -> " \
                     "Tuple[Sequence[tensor], Sequence[tensor]]"

    @C.Function
    def g3(x, y):
        return y + x
    assert str(g3) == "Composite(x: Sequence[tensor], y: Sequence[tensor]) -> Sequence[tensor]"

    @C.Function
    def g2(x: Tensor[3], y: Tensor[3]):
        return x + y
    assert str(g2) == "Plus(x: Tensor[3], y: Tensor[3]) -> Tensor[3]"
