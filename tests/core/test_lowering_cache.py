"""A Function lowers once per (outputs, arguments, training) signature to a cached torch module."""
import numpy as np
import pytest
import torch

import cntk as C


def _model():
    x = C.input_variable(2, name="x")
    y = C.input_variable(2, name="y")
    w = C.parameter((2,), init=np.array([1., 2.], np.float32), name="w")
    return x, y, w, C.element_times(x, w) + y


def test_the_same_signature_hits_the_cache_and_another_misses():
    x, y, _, f = _model()
    module = f.torch_module()
    assert f.torch_module() is module
    assert f.torch_module([x, y]) is module
    assert f.torch_module([y, x]) is not module
    assert f.torch_module(training=True) is not module
    assert f.torch_module(training=True) is f.torch_module(training=True)
    assert f.torch_module().training is False and f.torch_module(training=True).training is True


def test_set_value_reaches_the_cached_module_without_lowering_again():
    x, y, w, f = _model()
    data = {x: np.ones((1, 2), np.float32), y: np.zeros((1, 2), np.float32)}
    module = f.torch_module()
    np.testing.assert_array_equal(f.eval(data), [[1., 2.]])
    w.value = np.array([5., 7.], np.float32)
    assert f.torch_module() is module
    np.testing.assert_array_equal(f.eval(data), [[5., 7.]])
    on = w.tensor.device                # a plain PyTorch caller feeds the module's device
    out = module(torch.ones(1, 2, device=on), torch.zeros(1, 2, device=on))
    np.testing.assert_array_equal(out[0].detach().cpu().numpy(), [[5., 7.]])


def test_replace_placeholders_gives_a_graph_that_lowers_with_the_substitute():
    x = C.input_variable(2, name="x")
    p = C.placeholder(name="p")
    f = x * 3 + p
    with pytest.raises(ValueError, match="placeholder"):
        f.torch_module([x])
    z = C.input_variable(2, name="z")
    f.replace_placeholders({p: z})
    assert [a.name for a in f.arguments] == ["x", "z"]
    data = {x: np.ones((1, 2), np.float32), z: np.full((1, 2), 10., np.float32)}
    np.testing.assert_array_equal(f.eval(data), [[13., 13.]])
    f2 = C.plus(x, 1)
    f2.eval({x: np.ones((1, 2), np.float32)})
    g = f2 * p
    g.replace_placeholders({p: z})
    np.testing.assert_array_equal(g.eval(data), [[20., 20.]])
    assert f2.torch_module() is f2.torch_module()
