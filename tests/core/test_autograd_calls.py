"""The autograd engine called directly for scalar losses gives what torch.autograd.grad / backward give."""
import pytest
import torch

from cntk_compat.core.autograd_calls import backward, grad


def test_gradients_from_the_engine_equal_autograd_grad_and_unused_inputs_get_none():
    a = torch.randn(3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    unused = torch.randn(2, requires_grad=True)
    loss = (a * b).sum() + a.square().sum()
    expected = torch.autograd.grad(loss, [a, b, unused], allow_unused=True, retain_graph=True)
    got = grad(loss, [a, b, unused])
    assert got[2] is None and expected[2] is None
    for g, e in zip(got[:2], expected[:2]):
        assert torch.equal(g, e)
    frozen = torch.randn(3)  # an input without gradient goes through autograd.grad, which names the error
    with pytest.raises(RuntimeError, match="does not require grad"):
        grad((a * frozen).sum(), [a, frozen])


def test_backward_from_the_engine_accumulates_as_autograd_backward():
    a = torch.randn(3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    backward(((a * b).sum(), a.square().sum()), (a, b))
    expected_a, expected_b = b.detach() + 2 * a.detach(), a.detach().clone()
    assert torch.equal(a.grad, expected_a) and torch.equal(b.grad, expected_b)
    with pytest.raises(RuntimeError, match="does not require grad"):
        backward((torch.randn(3).sum(),), (a,))
