"""Binarizing user functions of cntk.contrib.netopt (CNTK 2.7's names and semantics).

Forward, each binarizes its input; backward, each passes the gradient straight through where the input is
small enough (the straight-through estimator) and stops it elsewhere:

- ``SignWithEstimation`` / ``pySign``: +1 where x > 0, else -1 (0 gives -1); gradient where |x| <= 1.
- ``Multibit`` (bit_map: the number of bits of each element, the input's shape): bit by bit, the remainder
  (at first the input) is replaced by mean(|remainder|) * sign(remainder) over the elements that still have
  bits, the mean taken over all of a sample's elements (a parameter: all of it); the output is the sum of the
  bit levels. Gradient where |x| <= bit_map.
- ``MultibitKernel``: the same with one mean per kernel (per index of the first axis), for weights.

Where CNTK 2.7's own versions fail (its SignWithEstimation.backward reads a missing ``C.output_values``; its
MultibitKernel cannot be constructed), these compute what CNTK documents.

The ``Custom*`` functions wrap them as Functions; ``CustomMultibit(x, 1)`` is 1-bit binarization with a
scale, mean(|x|) * sign(x).
"""
import numpy as np
import torch

import cntk_compat as C
from cntk_compat.core.value import Value
from cntk_compat.ops._user_function import UserFunction

__all__ = ["SignWithEstimation", "pySign", "MultibitKernel", "Multibit", "CustomSign", "CustomPySign",
           "CustomMultibit", "CustomMultibitKernel"]


def _same_type_output(function):
    x = function.inputs[0]
    return [C.output_variable(x.shape, x.dtype, x.dynamic_axes)]


def _plus_minus_one(t):
    return torch.where(t > 0, torch.ones_like(t), -torch.ones_like(t))


def _tensor_of(data):
    return data.tensor if isinstance(data, Value) else torch.as_tensor(np.asarray(data))


def _binarized(x, bit_map, static_rank, per_kernel):
    """The multi-bit approximation of x (batch axes first, then static_rank sample axes)."""
    bits_of = torch.as_tensor(bit_map, device=x.device)
    first = x.dim() - static_rank
    axes = tuple(range(first + (1 if per_kernel else 0), x.dim()))
    map_axes = tuple(a - first for a in axes)
    approx = torch.zeros_like(x)
    remainder = x
    for level in range(int(bits_of.max())):
        hot = (bits_of > level).to(x.dtype)
        count = hot.sum(map_axes, keepdim=True) if map_axes else hot
        scale = (remainder.abs() * hot).sum(axes, keepdim=True) / count
        step = _plus_minus_one(remainder) * hot * scale
        approx = approx + step
        remainder = remainder - step
    return approx


class SignWithEstimation(UserFunction):
    """sign(x) with 0 -> -1; straight-through gradient where |x| <= 1."""

    def __init__(self, arg, name='SignWithEstimation'):
        super(SignWithEstimation, self).__init__([arg], as_numpy=False, name=name)

    def infer_outputs(self):
        return _same_type_output(self)

    def forward(self, argument, device=None, outputs_to_retain=None):
        x = _tensor_of(argument)
        return x, Value(_tensor=_plus_minus_one(x))

    def backward(self, state, root_gradients):
        g = _tensor_of(root_gradients)
        return Value(_tensor=g * (state.abs() <= 1).to(g.dtype))


class pySign(UserFunction):
    """SignWithEstimation computed on numpy arrays."""

    def __init__(self, arg, name='pySign'):
        super(pySign, self).__init__([arg], name=name)

    def infer_outputs(self):
        return _same_type_output(self)

    def forward(self, argument, device=None, outputs_to_retain=None):
        return argument, np.where(argument > 0, 1, -1).astype(argument.dtype)

    def backward(self, state, root_gradients):
        return root_gradients * (np.abs(state) <= 1)


class _MultibitBase(UserFunction):
    _per_kernel = False

    def __init__(self, arg1, arg2, name=None):
        self.bit_map = np.asarray(arg2)
        super(_MultibitBase, self).__init__([arg1], as_numpy=False, name=name or type(self).__name__)

    @classmethod
    def deserialize(cls, inputs, name, state):
        return cls(inputs[0], np.asarray(state['bit_map'], dtype=np.int32), name)

    def infer_outputs(self):
        return _same_type_output(self)

    def forward(self, argument, device=None, outputs_to_retain=None):
        x = _tensor_of(argument)
        approx = _binarized(x, self.bit_map, len(self.inputs[0].shape), self._per_kernel)
        return x, Value(_tensor=approx)

    def backward(self, state, root_gradients):
        g = _tensor_of(root_gradients)
        limit = torch.as_tensor(self.bit_map, device=state.device, dtype=state.dtype)
        return Value(_tensor=g * (state.abs() <= limit).to(g.dtype))

    def serialize(self):
        return {'bit_map': np.asarray(self.bit_map, dtype=np.float32)}

    def clone(self, cloned_inputs):
        return type(self)(cloned_inputs[0], self.bit_map, self.name)


class Multibit(_MultibitBase):
    """Multi-bit binarization with one scale per bit level for the whole input (per sample)."""


class MultibitKernel(_MultibitBase):
    """Multi-bit binarization with one scale per bit level and kernel (index of the first axis)."""
    _per_kernel = True


def CustomSign(input):
    return C.user_function(SignWithEstimation(input))


def CustomPySign(input):
    return C.user_function(pySign(input))


def _bit_map(input, bit_map, mean_bits):
    if mean_bits:
        # random bit counts around mean_bits (at least 1): one N(mean_bits, 1) draw per element from numpy's
        # global generator, rounded, as CNTK draws them
        draws = np.random.normal(mean_bits, 1, input.shape)
        bit_map = np.maximum(np.round(draws), 1).astype(np.int32)
        print("Mean Bits: ", np.mean(bit_map))
    elif type(bit_map) == int:
        bit_map = np.full(input.shape, bit_map, dtype=np.int64)
    else:
        bit_map = np.asarray(bit_map)
    assert bit_map.shape == tuple(input.shape)
    return bit_map


def CustomMultibit(input, bit_map, mean_bits=None):
    """``input`` binarized to ``bit_map`` bits per element (an int: the same for all), or to random counts around
    ``mean_bits``."""
    return C.user_function(Multibit(input, _bit_map(input, bit_map, mean_bits)))


def CustomMultibitKernel(input, bit_map, mean_bits=None):
    """As CustomMultibit, with one scale per kernel."""
    return C.user_function(MultibitKernel(input, _bit_map(input, bit_map, mean_bits)))
