"""@Function whose graph would list its arguments in another order than the Python parameters calls its body on
the outputs of a 'Tuple' block binding them in order, as CNTK 2.7 does: Functions built later on its outputs keep
that order (facts from CNTK 2.7)."""
import cntk as C


def names(f):
    return [a.name for a in f.arguments]


@C.Function
def _swapped(b, a):
    return a + 1, b * 2


@C.Function
def _three(c, b, a):
    return C.splice(a, c), b


def test_later_ops_keep_the_python_order():
    f = _swapped
    assert names(f) == ['b', 'a']
    assert names(C.plus(f.outputs[0], f.outputs[1])) == ['b', 'a']
    assert str(C.plus(f.outputs[0], f.outputs[1])) == \
        'Composite(b: Sequence[tensor], a: Sequence[tensor]) -> Sequence[tensor]'
    assert names(C.combine([f.outputs[0], f.outputs[1]])) == ['b', 'a']
    assert names(f.outputs[1] * 3) == ['b', 'a']   # every output reads all arguments through the Tuple block
    assert names(_three.outputs[0] + 1) == ['c', 'b', 'a']
    assert names(C.combine([_three.outputs[1], _three.outputs[0]])) == ['c', 'b', 'a']


def test_the_body_reads_the_tuple_block():
    inputs = _three.outputs[0].owner.inputs
    assert [(i.name, i.owner.op_name) for i in inputs] == [('', 'Tuple'), ('', 'Tuple')]
    tuple_block = inputs[0].owner
    assert tuple_block.is_block and [(k.name, v.name) for k, v in tuple_block.block_arguments_mapping] == \
        [('c', 'c'), ('b', 'b'), ('a', 'a')]

    @C.Function
    def f(x, y):
        return y + x
    assert str(f) == 'Composite(x: Sequence[tensor], y: Sequence[tensor]) -> Sequence[tensor]'
    assert [i.owner.op_name for i in f.root_function.inputs] == ['Tuple', 'Tuple']


def test_calls_follow_the_order():
    x = C.input_variable(2, name='x')
    y = C.input_variable(2, name='y')
    r = _swapped(x, y)
    assert names(r) == ['x', 'y']
    assert names(C.plus(*r.outputs)) == ['x', 'y']


def test_functions_in_order_need_no_tuple_block():
    @C.Function
    def f(x, y):
        return x + y
    assert f.root_function.op_name == 'Plus'
    assert [i.name for i in f.root_function.inputs] == ['x', 'y']
