"""Turning user-supplied gradient values into tensors that match a parameter."""
import numpy as np
import torch


def as_gradient_tensor(value, like, parameter):
    """``value`` (torch tensor, numpy array, or an object holding a ``.tensor``) as a dense tensor with the
    dtype, device and shape of the parameter tensor ``like``; never a copy when it already matches."""
    if type(value) is torch.Tensor and value.dtype == like.dtype and value.shape == like.shape and \
            value.device == like.device and value.layout == torch.strided and not value.requires_grad:
        return value  # what the Trainer hands over: already a match
    if not isinstance(value, torch.Tensor):
        held = getattr(value, "tensor", None)
        value = held if isinstance(held, torch.Tensor) else torch.as_tensor(np.asarray(value))
    value = value.detach()
    if value.layout != torch.strided:
        value = value.to_dense()
    if value.shape != like.shape:
        if value.numel() != like.numel():
            raise ValueError("the gradient for parameter %r has shape %s, expected %s"
                             % (parameter, tuple(value.shape), tuple(like.shape)))
        value = value.reshape(like.shape)
    return value.to(device=like.device, dtype=like.dtype)
