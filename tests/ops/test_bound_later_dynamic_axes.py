"""A binary op broadcasts an operand without a sequence axis along the other's only when it is built (a
ReconcileDynamicAxis node reads it); an op built on a placeholder and later bound to a sequence beside a batch-only
operand is refused when the placeholder is replaced, with CNTK 2.7's RuntimeError naming the operand whose axes
differ from the first operand's."""
import numpy as np
import pytest

import cntk as C


@pytest.mark.parametrize("build, op_name, culprit, expected", [
    (lambda p, b: p + b, "Plus", "Input\\('b', \\[#\\], \\[3\\]\\)", "\\[#, \\*\\]"),
    (lambda p, b: C.element_times(p, b), "ElementTimes", "Input\\('b'", "\\[#, \\*\\]"),
    (lambda p, b: b - p, "Minus", "Input\\('s', \\[#, \\*\\], \\[3\\]\\)", "\\[#\\]"),
    (lambda p, b: C.times(p, C.parameter((3, 3))) + b, "Plus", "Input\\('b'", "\\[#, \\*\\]"),
    (lambda p, b: C.splice(p, b), "Splice", "Input\\('b'", "\\[#, \\*\\]"),
    (lambda p, b: C.element_select(p, b, b), "Select", "Input\\('b'", "\\[#, \\*\\]"),
    (lambda p, b: C.sequence.past_value(p) + b, "Plus", "Input\\('b'", "\\[#, \\*\\]"),
])
def test_a_placeholder_bound_to_a_sequence_beside_a_batch_operand_is_refused(build, op_name, culprit, expected, capfd):
    s, b = C.sequence.input_variable(3, name="s"), C.input_variable(3, name="b")
    ph = C.placeholder(name="ph")
    f = build(ph, b)
    assert f.output.dynamic_axes == (C.Axis.default_batch_axis(),)
    with pytest.raises(RuntimeError, match="Operation '%s': Operand '%s.* has dynamic axes, that do not match the "
                                           "dynamic axes '%s' of the other operands" % (op_name, culprit, expected)):
        f.replace_placeholders({ph: s})
    assert "About to throw exception 'Operation '%s'" % op_name in capfd.readouterr().err


def test_built_on_the_sequence_the_batch_operand_is_broadcast():
    s, b = C.sequence.input_variable(3, name="s"), C.input_variable(3, name="b")
    out = (s + b).eval({s: [np.ones((2, 3), np.float32)], b: np.full((1, 3), 2, np.float32)})
    assert [o.tolist() for o in out] == [[[3.0] * 3] * 2]
