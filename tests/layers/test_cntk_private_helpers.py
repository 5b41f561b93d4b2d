"""The private helpers CNTK 2.7's layers modules define, which scripts and libraries built on CNTK import
(ReasoNet's `_initializer_for`, cntkx's `_inject_name`)."""
import numpy as np

import cntk as C
from cntk.layers.blocks import _get_initial_state_or_default, _initializer_for, _inject_name, _INFERRED
from cntk.layers.layers import _initializer_for as layers_initializer_for, _INFERRED as layers_inferred


def test_initializer_for_takes_cntk_rank_params():
    init = _initializer_for(C.glorot_uniform(seed=3), {"output_rank": 1})
    p = C.parameter((4, 3), init=init)
    q = C.parameter((4, 3), init=C.glorot_uniform(output_rank=1, seed=3))
    np.testing.assert_array_equal(p.value, q.value)
    assert _initializer_for(0.5) == 0.5 and layers_initializer_for is _initializer_for
    assert layers_inferred == _INFERRED == (C.InferredDimension,)


def test_inject_name_and_initial_state_default():
    x = C.input_variable(2)
    f = _inject_name(C.square(x), "sq")
    assert f.name == "sq"
    s = _get_initial_state_or_default(2.5)
    assert isinstance(s, C.variables.Constant) and s.shape == (1,) and s.value == 2.5
    assert _get_initial_state_or_default(None).shape == ()


def test_step_function_sanitizers_under_cntks_names():
    from cntk.layers.sequence import _sanitize_function, _santize_step_function
    import pytest
    f = _sanitize_function(lambda x: C.square(x))
    assert isinstance(f, C.Function)
    step = _santize_step_function(lambda h, x: h + x)
    assert [a.name for a in step.arguments] == ["h", "x"]
    y = C.input_variable(1, name="y")
    with pytest.raises(TypeError, match="other than its arguments"):
        _santize_step_function(lambda h, x: h + x + y)
