"""A model with an input on custom dynamic axes (`input_variable(dynamic_axes=[batch, new_unique_dynamic_axis('c')])`,
as BiDAF's polymath.py builds) is written with CNTK's order of dynamic axes, the batch axis last: CNTK 2.7 refused
the file cntk-compat wrote ("Input Variable 'Input('x', [c, #], [3])' does not have the DefaultBatchAxis as its last
dynamic axis."), and reads this one (checked: it evaluates it to [[4, 4, 4]])."""
import numpy as np

import cntk as C
from cntk_compat.core.axis import BATCH_AXIS_NAME


def test_custom_axes_are_stored_batch_last_and_read_back(tmp_path):
    c = C.Axis.new_unique_dynamic_axis('c')
    x = C.input_variable(3, dynamic_axes=[C.Axis.default_batch_axis(), c], name='x')
    y = C.sequence.reduce_sum(x * 2)
    path = str(tmp_path / "m.model")
    y.save(path)
    with open(path, "rb") as f:
        assert f.read(2) != b"PK"  # CNTK's v2 format, not the package's archive
    g = C.load_model(path)
    arg = g.arguments[0]
    assert [a.name for a in arg._dynamic_axes][-1] == BATCH_AXIS_NAME
    assert [a.name for a in arg.dynamic_axes] == [BATCH_AXIS_NAME, 'c']
    assert np.allclose(g.eval({arg: [np.ones((2, 3), np.float32)]}), [[4, 4, 4]])
