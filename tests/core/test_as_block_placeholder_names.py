"""as_block names the block's placeholders after the arguments bound to them, unnamed arguments too (facts from
CNTK 2.7); the placeholders given to as_block keep their own names."""
import cntk as C


def _mapping(f):
    return [(k.name, v.name) for k, v in f.root_function.block_arguments_mapping]


def test_placeholders_take_the_names_of_their_arguments():
    x = C.input_variable(3, name='x')
    y = C.input_variable(3, name='y')
    p1 = C.placeholder(name='p1')
    p2 = C.placeholder()
    blk = C.as_block(C.plus(p1, p2 * 2), [(p1, x), (p2, y)], 'MyBlock', 'inst')
    assert _mapping(blk) == [('x', 'x'), ('y', 'y')]
    assert [a.name for a in blk.root_function.block_root.arguments] == ['x', '']
    assert str(blk) == 'inst: MyBlock(x: Tensor[3], y: Tensor[3]) -> Tensor[3]'
    assert (p1.name, p2.name) == ('p1', '')


def test_outputs_and_placeholders_as_arguments():
    x = C.input_variable(3, name='x')
    q = C.placeholder(name='q')
    assert _mapping(C.as_block(q * 3, [(q, C.exp(x, name='ex'))], 'B2')) == [('ex', 'ex')]
    q = C.placeholder(name='q2')
    blk = C.as_block(q * 3, [(q, C.exp(x))], 'B3')
    assert _mapping(blk) == [('', '')]
    assert str(blk.root_function.block_root) == 'ElementTimes(Tensor[3]) -> Tensor[3]'
    q = C.placeholder(name='q3')
    blk = C.as_block(q * 3, [(q, C.placeholder(name='outer'))], 'B4')
    assert _mapping(blk) == [('outer', 'outer')]
    assert str(blk) == 'B4(outer: Sequence[tensor]) -> Sequence[tensor]'
