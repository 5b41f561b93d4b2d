"""Learners that divide by a square root update 0-d parameters (a Stabilizer's scalar, which CNTK_204's and the
ATIS example's models hold): the correctly rounded CPU sqrt keeps a 0-d tensor 0-d."""
import numpy as np
import pytest
import torch

import cntk as C
from cntk_compat.core import rounding


def test_sqrt_of_a_0d_tensor_is_a_0d_tensor():
    r = rounding.sqrt(torch.tensor(4.0))
    assert isinstance(r, torch.Tensor) and r.shape == () and float(r) == 2.0
    assert [float(v) for v in rounding.foreach_sqrt([torch.tensor(9.0), torch.tensor([16.0])])[0].reshape(-1)] == [3.0]


@pytest.mark.parametrize("make", [
    lambda p: C.fsadagrad(p, C.learning_parameter_schedule(0.1), C.momentum_schedule(0.9)),
    lambda p: C.adam(p, C.learning_parameter_schedule(0.1), C.momentum_schedule(0.9)),
    lambda p: C.adagrad(p, C.learning_parameter_schedule(0.1)),
])
def test_a_scalar_parameter_is_learned(make):
    x = C.input_variable(2)
    z = C.layers.Stabilizer(enable_self_stabilization=True)(x)
    assert [p.shape for p in z.parameters] == [()]
    loss = C.reduce_sum(C.square(z - 2))   # the stabilizer starts as the identity
    trainer = C.Trainer(z, (loss, None), [make(z.parameters)])
    before = [np.array(p.value) for p in z.parameters]
    trainer.train_minibatch({x: np.ones((3, 2), np.float32)})
    assert any(not np.array_equal(b, p.value) for b, p in zip(before, z.parameters))
