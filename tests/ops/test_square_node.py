"""square(x) is the node CNTK 2.7 makes: ElementTimes of x with itself (squared_error's block holds ElementTimes,
Minus and ReduceElements, as CNTK's does)."""
import numpy as np

import cntk as C


def test_square_is_element_times_of_x_with_itself():
    x = C.input_variable(3, needs_gradient=True)
    f = C.square(x, name='sq')
    root = f.root_function
    assert (root.op_name, root.name, [i.uid for i in root.inputs]) == ("ElementTimes", "sq", [x.uid, x.uid])
    data = np.array([[1, -2, 3]], np.float32)
    np.testing.assert_array_equal(f.eval({x: data}), data ** 2)
    np.testing.assert_array_equal(f.grad({x: data}, wrt=[x]), 2 * data)


def test_squared_error_block_holds_cntks_primitives():
    z, y = C.input_variable(3), C.input_variable(3)
    inner = C.logging.graph.depth_first_search(C.squared_error(z, y).root_function.block_root,
                                               lambda n: isinstance(n, C.Function))
    assert sorted({n.op_name for n in inner}) == ["ElementTimes", "Minus", "ReduceElements"]
