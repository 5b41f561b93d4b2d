"""torch's autograd engine called directly for the training step's scalar losses.

``torch.autograd.grad`` and ``torch.autograd.backward`` check their arguments in Python before handing them to
the C++ engine; for a small model that costs as much as a noticeable part of the step (about 15 us of
``train_minibatch``, as much as the backward pass of a DDP step). Where the roots are scalars that require
gradients, these functions give the engine the arguments the wrappers would; anything else goes through the
wrappers, which name the error."""
import torch

# the engine's entry point the wrappers end in (private, present since torch 2.3; before, the engine itself,
# with the same arguments)
_run_engine = getattr(torch.autograd.graph, "_engine_run_backward", None) or \
    torch.autograd.Variable._execution_engine.run_backward


def _ones(roots):
    return tuple(torch.ones_like(r, memory_format=torch.preserve_format) for r in roots)


def _scalars(roots):
    return all(type(r) is torch.Tensor and r.requires_grad and r.dim() == 0 for r in roots)


def grad(loss, inputs):
    """``torch.autograd.grad(loss, inputs, allow_unused=True)``."""
    if _scalars((loss,)) and all(t.requires_grad for t in inputs):
        return _run_engine((loss,), _ones((loss,)), False, False, tuple(inputs), allow_unreachable=True,
                           accumulate_grad=False)
    return torch.autograd.grad(loss, inputs, allow_unused=True)


def backward(roots, inputs):
    """``torch.autograd.backward(roots, inputs=inputs)``: gradients accumulated into ``inputs``' ``.grad``."""
    if _scalars(roots):
        _run_engine(roots, _ones(roots), False, False, inputs, allow_unreachable=True, accumulate_grad=True)
    else:
        torch.autograd.backward(roots, inputs=inputs)
