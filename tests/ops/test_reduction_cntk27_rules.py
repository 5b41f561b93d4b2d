"""Reductions as CNTK 2.7 computes and refuses them. Golden values from CNTK 2.7 (float32 bits, as float.hex):
sums, means and products accumulate in double precision and round once (a mean is the rounded sum times the
rounded 1/n), log-sum-exp likewise; reduce_prod's gradient is (gradient * output) * 1/input with 1/0 taken as 0.
keepdims=False takes static axes given by their index only (ValueError); the batch axis is reduced only for an
operand that has one and no sequence axis (RuntimeError)."""
import numpy as np
import pytest

import cntk as C

GOLDEN = {
    'sum': ['0x1.075206p+0', '0x1.05b3b2p+4', '-0x1.dc4e52p+2', '-0x1.afc7e4p-1', '-0x1.3b8a68p+2', '-0x1.deec00p+3'],
    'mean': ['0x1.075206p-6', '0x1.05b3b2p-2', '-0x1.dc4e52p-4', '-0x1.afc7e4p-7', '-0x1.3b8a68p-4', '-0x1.deec00p-3'],
    'lse': ['0x1.2e8628p+2', '0x1.3889bcp+2', '0x1.21ad66p+2', '0x1.22eaaep+2', '0x1.253c56p+2', '0x1.172b14p+2'],
    'prod': ['0x1.091eb2p-27', '-0x1.c15656p-21', '0x1.eef896p-24', '-0x1.06a19ap-45', '-0x1.c0b648p-41', '0x1.3bfa0cp-32'],
    'batch_sum': ['0x1.ff06d0p+1', '-0x1.22cb06p+2', '-0x1.839a68p+3'],
    'all_mean': ['-0x1.0e297cp-4'],
    'prod_grad': ['0x1.2c949ep-28', '0x1.4b4508p-26', '0x1.0ee11cp-27', '0x1.d93d5cp-29', '0x1.1bebe6p-28', '-0x1.0f48b8p-27'],
}


def _bits(values):
    return [float(v).hex().replace("0000000p", "p") for v in np.asarray(values, dtype=np.float32).ravel()]


def test_reductions_round_once_as_cntk():
    rs = np.random.RandomState(0)
    X = rs.randn(6, 64).astype(np.float32)
    Xb = rs.randn(64, 3).astype(np.float32)
    x = C.input_variable((64,), needs_gradient=True)
    xb = C.input_variable((3,))
    assert _bits(C.reduce_sum(x, axis=0).eval({x: X})) == GOLDEN["sum"]
    assert _bits(C.reduce_mean(x, axis=0).eval({x: X})) == GOLDEN["mean"]
    assert _bits(C.reduce_log_sum_exp(x, axis=0).eval({x: X})) == GOLDEN["lse"]
    assert _bits(C.reduce_prod(x * 1.3, axis=0).eval({x: X})) == GOLDEN["prod"]
    assert _bits(C.reduce_sum(xb, axis=C.Axis.default_batch_axis()).eval({xb: Xb})) == GOLDEN["batch_sum"]
    assert _bits(C.reduce_mean(xb, axis=C.Axis.all_axes()).eval({xb: Xb})) == GOLDEN["all_mean"]
    assert _bits(C.reduce_prod(x * 1.3, axis=0).grad({x: X}, wrt=[x])[0, :6]) == GOLDEN["prod_grad"]


def test_product_gradient_at_zero():
    x = C.input_variable((2, 3), needs_gradient=True)
    X = (np.arange(12, dtype=np.float32).reshape(2, 2, 3) - 5) / 5
    g = C.reduce_prod(x, axis=0).grad({x: X}, wrt=[x])
    assert np.allclose(g, [[[-0.4, -0.2, 0.0], [-1.0, -0.8, 0.0]], [[0.8, 1.0, 1.2], [0.2, 0.4, 0.6]]])
    assert np.signbit(g[0, 1, 2])  # CNTK 2.7: -0.0 (the output -0.0 times 1/0 taken as 0)
    g = C.reduce_prod(x, axis=(0, 1)).grad({x: X}, wrt=[x])
    assert np.allclose(g[0], 0) and np.allclose(g[1], [[0.2304, 0.1152, 0.0768], [0.0576, 0.04608, 0.0384]])


@pytest.mark.parametrize("axis", [None, C.Axis.all_axes(), C.Axis.all_static_axes(), C.Axis.default_batch_axis(),
                                  [0, C.Axis.default_batch_axis()], [C.Axis.all_static_axes()]])
def test_keepdims_false_needs_static_indices(axis):
    x = C.input_variable((2, 3))
    with pytest.raises(ValueError):
        C.reduce_sum(x, axis=axis, keepdims=False)
    C.reduce_sum(x, axis=axis)


def test_axis_sentinels_in_a_list():
    x = C.input_variable((2, 3))
    X = np.arange(12, dtype=np.float32).reshape(2, 2, 3) - 5
    assert np.array_equal(C.reduce_sum(x, axis=[C.Axis.all_static_axes()]).eval({x: X}), [-15.0, 21.0])
    assert C.reduce_max(x, axis=[C.Axis.all_axes()]).eval({x: X}) == 6.0
    assert np.array_equal(C.reduce_sum(x, axis=(0, 1), keepdims=False).eval({x: X}), [-15.0, 21.0])


def test_batch_reduction_needs_a_batch_without_sequence():
    c = C.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    s = C.sequence.input_variable((2,))
    for operand in (c, s):
        for axis in (C.Axis.default_batch_axis(), [0, C.Axis.default_batch_axis()]):
            with pytest.raises(RuntimeError):
                C.reduce_sum(operand, axis=axis)
