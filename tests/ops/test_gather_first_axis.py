"""gather(reference, indices, axis=0) is CNTK 2.7's plain Gather primitive keeping its axis (Axis(-1)), typed as
gather without an axis; any other axis (also -rank, the first axis counted from the end) is its GatherOp. Golden
facts from CNTK 2.7."""
import numpy as np
import pytest

import cntk as C


def _ref(dtype=np.float32):
    return C.constant(np.arange(12., dtype=dtype).reshape(3, 4))


def test_axis_0_is_a_gather_primitive_keeping_its_axis():
    i = C.input_variable(1)
    f = C.gather(_ref(), i, axis=0)
    r = f.root_function
    assert (r.op_name, r.is_primitive, dict(r.attributes)) == ('Gather', True, {'axis': ('ordered', 'static', -1)})
    assert repr(f).startswith("Composite(Gather): ")
    assert [n.op_name for n in C.logging.graph.depth_first_search(f, lambda n: isinstance(n, C.Function),
                                                                   depth=-1)] == ['Gather']
    np.testing.assert_array_equal(f.eval({i: np.array([[1.]], np.float32)}), [[[4., 5., 6., 7.]]])
    for axis in (1, -1, -2):
        assert C.gather(_ref(), i, axis=axis).root_function.op_name == 'GatherOp'


def test_axis_0_converts_a_constant_reference_as_gather_without_an_axis():
    i = C.input_variable(1, dtype=np.float64)
    f = C.gather(_ref(np.float32), i, axis=0)
    assert f.dtype == np.float64
    np.testing.assert_array_equal(f.eval({i: np.array([[2.]])}), [[[8., 9., 10., 11.]]])
    with pytest.raises(ValueError, match="Constant::Clone: Cannot clone Constant .* with DataType 'Double' to "
                                         "DataType 'Float'"):
        i32 = C.input_variable(1)
        C.gather(_ref(np.float64), i32, axis=0).eval({i32: np.array([[1.]], np.float32)})
    with pytest.raises(ValueError, match="Primitive op 'Gather' passed operands .* with different DataTypes"):
        C.gather(_ref(np.float64), C.input_variable(1), axis=-2)


def test_a_saved_gather_along_the_first_axis_keeps_its_axis(tmp_path):
    i = C.input_variable(1)
    for axis, op_name, attributes in ((0, 'Gather', {'axis': ('ordered', 'static', -1)}), (1, 'GatherOp', {}),
                                      (None, 'Gather', {})):
        path = str(tmp_path / ('g%s.model' % axis))
        C.gather(_ref(), i, axis=axis).save(path)
        g = C.Function.load(path)
        assert (g.root_function.op_name, dict(g.root_function.attributes)) == (op_name, attributes)
