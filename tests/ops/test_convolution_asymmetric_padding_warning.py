"""CNTK 2.7 on the CPU warns on stderr, at each computation, about an auto-padded convolution (forward or transposed)
whose padding is larger after the operand than before it; pooling never warns. Counts and cases from CNTK 2.7."""
import numpy as np
import pytest

import cntk as C

WARNING = ("WARNING: Detected asymmetric padding issue with lowerPad != higherPad, not supported by MKL. "
           "Switching to GEMM convolution engine. \n")

# (input size, kernel, stride) of a 1-D auto-padded convolution, n 3..9, k 1..5 (k <= n), s 1..3, that CNTK 2.7
# warns about; all the others computed silently (but n=3, k=2, s=3, where CNTK's MKL fails: 'mkl err (-127)')
WARNS = {(3, 2, 1), (3, 2, 2), (4, 2, 1), (4, 2, 3), (4, 4, 1), (4, 4, 3), (5, 2, 1), (5, 2, 2), (5, 4, 1), (5, 4, 2), (6, 2, 1), (6, 2, 3), (6, 4, 1), (6, 4, 3), (7, 2, 1), (7, 2, 2), (7, 2, 3), (7, 4, 1), (7, 4, 2), (7, 4, 3), (8, 2, 1), (8, 4, 1), (9, 2, 1), (9, 2, 2), (9, 2, 3), (9, 4, 1), (9, 4, 2), (9, 4, 3), }


def test_which_geometries_warn(capfd):
    capfd.readouterr()
    for n in range(3, 10):
        for k in range(1, min(n, 5) + 1):
            for s in range(1, 4):
                if (n, k, s) == (3, 2, 3):
                    continue
                x = C.input_variable((1, n))
                f = C.convolution(C.constant(np.ones((1, 1, k), np.float32)), x, strides=(1, s),
                                  auto_padding=[False, True])
                f.eval({x: np.ones((1, 1, n), np.float32)})
                assert capfd.readouterr().err == (WARNING if (n, k, s) in WARNS else ""), (n, k, s)


def test_once_per_forward_pass_and_once_per_gradient_computed(capfd):
    x = C.input_variable((2, 5, 6), needs_gradient=True)
    f = C.layers.Convolution((2, 3), 2, pad=True)(x)
    d = np.ones((1, 2, 5, 6), np.float32)
    capfd.readouterr()
    f.eval({x: d})
    assert capfd.readouterr().err == WARNING
    f.grad({x: d}, wrt=[x])        # the kernel's gradient is computed too (a parameter)
    assert capfd.readouterr().err == WARNING * 3
    y = C.input_variable((2, 5, 6))
    g = C.layers.Convolution((2, 3), 2, pad=True)(y)
    g.grad({y: d}, wrt=g.parameters[:1])
    assert capfd.readouterr().err == WARNING * 2


@pytest.mark.parametrize("build, warns", [
    (lambda x: C.layers.Convolution((2, 2), 2, pad=True)(x), True),
    (lambda x: C.layers.Convolution((4, 3), 2, pad=True)(x), True),
    (lambda x: C.layers.Convolution((3, 3), 2, pad=True, strides=2)(x), False),   # padding 1 before, 0 after
    (lambda x: C.layers.Convolution((2, 2), 2, pad=False)(x), False),
    (lambda x: C.layers.ConvolutionTranspose((2, 2), 2, pad=True)(x), True),
    (lambda x: C.layers.ConvolutionTranspose((2, 2), 2, pad=True, strides=2)(x), True),
    (lambda x: C.layers.MaxPooling((2, 2), pad=True)(x), False),
    (lambda x: C.layers.AveragePooling((2, 2), pad=True)(x), False),
])
def test_convolutions_warn_and_pooling_does_not(build, warns, capfd):
    x = C.input_variable((2, 6, 6))
    f = build(x)
    capfd.readouterr()
    f.eval({x: np.ones((1, 2, 6, 6), np.float32)})
    assert capfd.readouterr().err == (WARNING if warns else "")
