"""CNTK's sqrt is the C library's sqrtf, correctly rounded; torch's vectorized float32 sqrt on the CPU is not
always (one ulp off for about 17% of random inputs on AVX-512). C.sqrt and the learners' sqrt(variance)
(core/rounding.py) give the correctly rounded value, which CNTK 2.7 printed for all 20000 inputs of a survey."""
import numpy as np
import torch

import cntk as C
from cntk_compat.core import rounding


def _inputs(n=20000):
    rng = np.random.RandomState(0)
    return (np.abs(rng.randn(1, n) * 4) + 1e-3).astype(np.float32)


def test_sqrt_op_is_correctly_rounded():
    v = _inputs()
    x = C.input_variable(v.shape[1])
    exact = np.sqrt(v.astype(np.float64)).astype(np.float32)
    assert np.array_equal(C.sqrt(x).eval({x: v}), exact)
    assert C.sqrt(x).eval({x: np.array([[-4.0] * v.shape[1]], np.float32)}).max() == 0   # CNTK: sqrt(<0) = 0


def test_the_learners_square_roots_are_correctly_rounded():
    v = torch.from_numpy(_inputs()[0])
    exact = torch.sqrt(v.double()).float()
    assert all(torch.equal(a, exact) for a in rounding.foreach_sqrt([v, v.clone()]))
    w = [v.clone(), v.clone()[::2]]
    rounding.foreach_sqrt_(w)
    assert torch.equal(w[0], exact) and torch.equal(w[1], exact[::2])
    assert torch.equal(rounding.sqrt(v.double()), torch.sqrt(v.double()))   # float64 as torch computes it
