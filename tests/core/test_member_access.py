"""A lowered module reads its members through properties (core/member_access.py) that follow torch's own dicts:
whatever replaces a parameter, buffer or scope there is what the forward computes with, and the module keeps
torch's names, copies and pickles."""
import copy
import io

import numpy as np
import torch

import cntk_compat as C
from cntk_compat.layers import Dense, Sequential

X = torch.tensor(np.random.RandomState(5).uniform(-1, 1, (4, 3)).astype(np.float32),
                 device=C.use_default_device().torch_device())


def _module():
    x = C.input_variable(3)
    f = Sequential([Dense(4, activation=C.relu, name="hidden"), Dense(2, name="out")])(x)
    return f.torch_module()


def _out(module, *args):
    out = module(*args)
    return (out[0] if isinstance(out, tuple) else out).detach().cpu().numpy()


def test_members_are_torch_s_and_keep_their_names():
    m = _module()
    assert sorted(n for n, _ in m.named_parameters()) == ["hidden.W", "hidden.b", "out.W", "out.b"]
    assert m.hidden is m._modules["hidden"]
    # read by properties of the module's own classes, not by nn.Module.__getattr__
    assert isinstance(type(m).__dict__["hidden"], property) and isinstance(type(m.hidden).__dict__["W"], property)
    assert m.hidden.W is m._modules["hidden"]._parameters["W"]


def test_forward_reads_what_functional_call_puts_in_place():
    m = _module()
    zeros = {n: torch.zeros_like(p) for n, p in m.named_parameters()}
    np.testing.assert_array_equal(torch.func.functional_call(m, zeros, (X,))[0].detach().cpu().numpy(),
                                  np.zeros((4, 2), np.float32))
    # and the module's own parameters afterwards
    assert np.abs(_out(m, X)).sum() > 0


def test_forward_reads_a_parameter_assigned_anew_and_a_plain_attribute_after_deletion():
    m = _module()
    w = m.out.W
    m.out.W = torch.nn.Parameter(torch.zeros_like(w))
    expected_bias = m.out.b.detach().cpu().numpy()
    np.testing.assert_allclose(_out(m, X), np.broadcast_to(expected_bias, (4, 2)))
    del m.out.W
    m.out.W = w.detach() * 2   # a plain tensor attribute now, no longer a parameter
    assert "W" not in m.out._parameters and m.out.W is m.out.__dict__["W"]
    del m.out.W
    try:
        m.out.W
        raise AssertionError("deleted attribute still found")
    except AttributeError:
        pass


def test_deepcopy_and_pickle_rebuild_the_member_access():
    m = _module()
    expected = _out(m, X)
    twin = copy.deepcopy(m)
    buffer = io.BytesIO()
    torch.save(m, buffer)
    buffer.seek(0)
    again = torch.load(buffer, weights_only=False)
    for other in (twin, again):
        np.testing.assert_allclose(_out(other, X), expected)
        with torch.no_grad():
            other.hidden.b.add_(10)
        assert np.abs(_out(other, X) - expected).max() > 1
        assert other.hidden.W is other._modules["hidden"]._parameters["W"]
    np.testing.assert_allclose(_out(m, X), expected)
