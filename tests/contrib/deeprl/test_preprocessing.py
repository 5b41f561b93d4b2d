"""Observation preprocessing: Atari frames as CNTK 2.7 reduced them (same random screens), and the sliding
window."""
import numpy as np
import pytest

from cntk.contrib.deeprl.agent.shared.preprocessing import AtariPreprocessing, SlidingWindow


def test_atari_frames_are_cntk27s():
    p = AtariPreprocessing((210, 160, 3), 3)
    assert p.output_shape() == (3, 84, 84)
    rng = np.random.RandomState(0)
    for _ in range(4):
        frames = p.preprocess(rng.randint(0, 256, (210, 160, 3)).astype(np.uint8))
    assert frames.dtype == np.uint8 and frames.shape == (3, 84, 84)
    assert frames.sum(axis=(1, 2)).tolist() == [1200467, 1196779, 1195185]
    assert frames[2, :2, :4].tolist() == [[168, 144, 139, 161], [179, 163, 167, 164]]
    p.reset()
    assert not p.preprocess(np.zeros((210, 160, 3), np.uint8)).any()
    with pytest.raises(ValueError):
        p.preprocess(np.zeros((84, 84, 3), np.uint8))


def test_sliding_window_stacks_the_last_inputs():
    w = SlidingWindow((2,), 3)
    assert w.output_shape() == (3, 2)
    w.preprocess(np.array([1, 2], np.float32))
    out = w.preprocess(np.array([3, 4], np.float32))
    np.testing.assert_array_equal(out, [[0, 0], [1, 2], [3, 4]])
    out = w.preprocess(np.array([5, 6], np.float32))
    out = w.preprocess(np.array([7, 8], np.float32))
    np.testing.assert_array_equal(out, [[3, 4], [5, 6], [7, 8]])
    w.reset()
    np.testing.assert_array_equal(w.preprocess(np.array([9, 9], np.float32)), [[0, 0], [0, 0], [9, 9]])
    with pytest.raises(ValueError):
        w.preprocess(np.array([1, 2], np.float64))
    with pytest.raises(ValueError):
        w.preprocess(np.array([1, 2, 3], np.float32))
