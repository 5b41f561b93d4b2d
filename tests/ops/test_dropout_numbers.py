"""Dropout masks are CNTK 2.7's: golden masks from CNTK 2.7 (CPU), a dropout node evaluated in training mode
(``forward(..., keep_for_backward=...)``) with a fixed seed, three consecutive calls on the same node."""
import numpy as np
import pytest

import cntk as C

# 1 = kept; rate 0.3, seed 11, input of shape (3, 5), a batch of 4, elements in C order
CNTK_MASKS_SEED11 = [
    "011100111100110110111111111001111100011011111101001011110001",
    "111110100001111011011011111001101110111111011101011110111110",
    "111011110111110011011100101010011101110111011111101111111101"
]

# rate 0.37, seed 5, input of shape (7,), a batch of 6; two calls in float32, then two in float64
CNTK_MASKS_SEED5 = [
    "100100011001010001111101010101100000101100",
    "111100110010110111001101111011001001010100",
    "100100011001010001111101010101100000101100",
    "111100110010110111001101111011001001010100"
]


def forward_masks(f, x, data, calls):
    masks = []
    for _ in range(calls):
        _, out = f.forward({x: data}, outputs=[f.output], keep_for_backward=[f.output])
        masks.append(''.join('1' if v else '0' for v in (np.asarray(out[f.output]) != 0).reshape(-1)))
    return masks


def test_masks_follow_the_nodes_stream():
    x = C.input_variable((3, 5))
    f = C.dropout(x, 0.3, seed=11)
    assert forward_masks(f, x, np.ones((4, 3, 5), np.float32), 3) == CNTK_MASKS_SEED11


@pytest.mark.parametrize('dtype, calls', [(np.float32, slice(0, 2)), (np.float64, slice(2, 4))])
def test_masks_and_scale_in_each_precision(dtype, calls):
    x = C.input_variable((7,), dtype=dtype)
    f = C.dropout(x, 0.37, seed=5)
    data = (np.arange(42).reshape(6, 7) / 7.0 + 0.1).astype(dtype)
    masks = forward_masks(f, x, data, 2)
    assert masks == CNTK_MASKS_SEED5[calls]
    _, out = f.forward({x: data}, outputs=[f.output], keep_for_backward=[f.output])
    kept = np.asarray(out[f.output]).reshape(-1) != 0
    scale = dtype(1.0 / (1.0 - 0.37))
    np.testing.assert_array_equal(np.asarray(out[f.output]).reshape(-1)[kept], data.reshape(-1)[kept] * scale)


def test_offset_restarts_the_stream_where_it_was():
    x = C.input_variable((3, 5))
    f = C.dropout(x, 0.3, seed=11)
    data = np.ones((4, 3, 5), np.float32)
    forward_masks(f, x, data, 1)
    g = C.dropout(x, 0.3, seed=11)
    g.root_function._root._attributes['rngOffset'] = 60      # as a checkpoint restores it
    assert forward_masks(g, x, data, 2) == CNTK_MASKS_SEED11[1:]
