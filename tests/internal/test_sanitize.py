"""cntk.internal: the sanitizers and helpers behave as CNTK 2.7's (expected values from running it)."""
import itertools

import numpy as np
import pytest

import cntk as C
from cntk import cntk_py
from cntk.internal import (bounded_cache, data_type_to_dtype, map_if_possible, sanitize_2d_number, sanitize_axis,
                           sanitize_convolution_args, sanitize_dtype_cntk, sanitize_dtype_numpy,
                           sanitize_dynamic_axes, sanitize_Function_attributes, sanitize_function,
                           sanitize_permutation, sanitize_precision, sanitize_random_args, sanitize_range,
                           sanitize_value, sanitize_var_map, typemap)
from cntk.internal.utils import get_data_type, get_python_function_arguments, map_function_arguments


def test_permutation_is_expressed_on_reversed_axes():
    assert sanitize_permutation([2, 0, 1]) == [1, 2, 0]
    for n in range(5):
        items = list(range(40, 40 + n))
        for p in itertools.permutations(range(n)):
            q = sanitize_permutation(p)
            assert list(reversed([items[i] for i in p])) == [list(reversed(items))[i] for i in q]
    with pytest.raises(ValueError, match="duplicate"):
        sanitize_permutation([0, 0])


def test_dtype_codes():
    assert sanitize_dtype_cntk("float") == cntk_py.DataType_Float == 1
    assert sanitize_dtype_cntk(float) == cntk_py.DataType_Double == 2
    assert sanitize_dtype_cntk(None) == cntk_py.DataType_Unknown
    assert sanitize_dtype_numpy(int) is np.float32 and sanitize_dtype_numpy(np.int16) is np.int16
    assert sanitize_precision("double") is np.float64 and data_type_to_dtype(2) is np.float64
    # a bool is an int to CNTK 2.7, compared with its codes: True is DataType_Float (CNTK's own io test passes True
    # as sequence.input_variable's second, dtype, argument)
    assert sanitize_dtype_cntk(True) is True and True == cntk_py.DataType_Float
    assert C.sequence.input_variable((3,), True).dtype == np.float32
    with pytest.raises(ValueError):
        sanitize_precision("complex")


def test_axes_and_convolution_flags_in_native_order():
    assert sanitize_axis(1) == C.Axis(-2)
    assert sanitize_axis(None) == C.Axis.all_static_axes()
    axes = [C.Axis.default_batch_axis(), C.Axis.default_dynamic_axis()]
    assert sanitize_dynamic_axes(axes) == tuple(reversed(axes))
    assert sanitize_convolution_args((1, 2), [True, False], [False, True]) == ((1, 2), [False, True], [True, False])
    assert sanitize_Function_attributes({"autoPadding": [True, False]}) == {"autoPadding": [False, True]}
    assert sanitize_2d_number(3) == (3, 3) and sanitize_range((1, 2)) == (1, 2)
    with pytest.raises(ValueError):
        sanitize_range((2, 1))


def test_values_and_var_maps():
    np.testing.assert_array_equal(sanitize_value((2,), None, np.float32, C.cpu()).asarray(), [0, 0])
    np.testing.assert_array_equal(sanitize_value((2,), 3, np.float32, C.cpu()).asarray(), [3, 3])
    x = C.input_variable(3, name="x")
    var_map = sanitize_var_map([x], {"x": np.ones((2, 3), np.float32)})
    assert list(var_map) == [x] and var_map[x].shape == (2, 3)
    with pytest.raises(ValueError, match="does not exist"):
        sanitize_var_map([x], {"y": np.ones((2, 3), np.float32)})
    assert sanitize_function(x).outputs[0].shape == (3,)
    assert sanitize_random_args(3, np.float64) == ((3,), cntk_py.DataType_Double)


def test_get_data_type_prefers_graph_types():
    pa32 = C.parameter(init=np.asarray(2, dtype=np.float32))
    pl = C.placeholder(shape=(2,))
    assert get_data_type(pa32, np.float64(1)) is np.float32
    assert get_data_type(pl, np.ones(1, np.float64)) is np.float64
    assert get_data_type(pl) is None
    assert get_data_type(np.int64(1)) is np.float32


def test_function_argument_helpers():
    def f(a, b, c=1):
        return a
    assert get_python_function_arguments(f)[0] == ["a", "b"]
    assert map_function_arguments(["a", "b"], {"a": "a", "b": "b"}, 1, b=2) == {"a": 1, "b": 2}
    with pytest.raises(TypeError, match="unexpected keyword"):
        map_function_arguments(["a"], {"a": "a"}, z=1)
    with pytest.raises(SyntaxError):
        map_function_arguments(["a"], {"a": "a"}, 1, a=2)


def test_bounded_cache_forgets_when_full():
    calls = []

    @bounded_cache(maxsize=2)
    def square(x):
        calls.append(x)
        return x * x
    assert [square(2), square(2), square(3), square(4), square(2)] == [4, 4, 9, 16, 4]
    assert calls == [2, 3, 4, 2]


def test_swig_helpers_return_objects_unchanged():
    v = C.input_variable(1)
    assert map_if_possible(v) is v
    assert typemap(lambda: v)() is v


def test_sample_installer_names():
    from cntk import sample_installer
    assert sample_installer.default_sample_dir() == "CNTK-Samples-2-7"
    assert sample_installer.default_sample_url() == "https://cntk.ai/Samples/CNTK-Samples-2-7.zip"
    assert not sample_installer.module_is_unreleased()
    assert C.auto_select == 2 ** 64 - 3 == C.random.auto_select


def test_sanitize_input_and_shape_as_cntk27():
    """CNTK 2.7: Functions pass through sanitize_input as they are; None and an empty list are ValueErrors;
    sanitize_shape(None) a TypeError."""
    from cntk.internal import sanitize_input, sanitize_shape
    x = C.input_variable(2)
    f = C.sigmoid(x)
    assert sanitize_input(f) is f and sanitize_input(x) is x
    assert sanitize_input([1, 2], np.float64).dtype == np.float64
    assert sanitize_input([1, 2, 3, 4], reshape=(2, 2)).shape == (2, 2)
    with pytest.raises(ValueError, match="could not convert instance of type"):
        sanitize_input(None)
    with pytest.raises(ValueError, match="input is empty"):
        sanitize_input([])
    with pytest.raises(TypeError):
        sanitize_shape(None)
