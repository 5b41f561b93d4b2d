"""Observation preprocessing: turning what the environment returns into what the agent's network reads.

A preprocessor is built as ``cls(input_shape, *args)`` (the agents take the class path from ``PreProcessing``
and the extra arguments from ``PreProcessingArgs`` in the config file), is reset at the start of each episode
and maps every observation through ``preprocess``; ``output_shape`` gives the shape it produces.
"""
from collections import deque

import numpy as np
from PIL import Image


class Preprocessing(object):
    """Base of the preprocessors; subclasses implement output_shape, reset and preprocess."""

    def __init__(self, input_shape):
        self._input_shape = input_shape

    def output_shape(self):
        """Shape of the preprocessed observations."""
        raise NotImplementedError

    def reset(self):
        """Starts a new episode."""
        raise NotImplementedError

    def preprocess(self, observation):
        """The preprocessed form of ``observation``."""
        raise NotImplementedError


def _frame_stack(length, frame):
    """A deque of ``length`` frames, filled with copies of ``frame``; appending drops the oldest."""
    return deque([frame] * length, maxlen=length)


class AtariPreprocessing(Preprocessing):
    """Atari 2600 screens (uint8 RGB arrays of ``input_shape``, normally (210, 160, 3)) as in DQN: each frame
    is the pixel-wise maximum of the current and the previous screen, reduced to its luma (the Y of YCbCr) and
    resized bilinearly to 84x84; the output stacks the last ``history_len`` such frames, zeros before the
    episode has that many: shape (history_len, 84, 84)."""

    def __init__(self, input_shape, history_len=4):
        super(AtariPreprocessing, self).__init__(input_shape)
        self.__history_len = history_len
        self.reset()

    def output_shape(self):
        return (self.__history_len, 84, 84)

    def reset(self):
        self.__previous_raw_image = np.zeros(self._input_shape, dtype=np.uint8)
        self.__processed_image_seq = _frame_stack(self.__history_len, np.zeros((84, 84)))

    def preprocess(self, image):
        if image.shape != self._input_shape:
            raise ValueError('AtariPreprocessing expects screens of shape {0}, got {1}'.format(
                self._input_shape, image.shape))
        brighter = np.maximum(image, self.__previous_raw_image).astype(np.uint8)
        luma = Image.fromarray(brighter).convert('YCbCr').getchannel(0)
        self.__processed_image_seq.append(np.array(luma.resize((84, 84), Image.BILINEAR)))
        self.__previous_raw_image = image
        return np.stack(self.__processed_image_seq)


class SlidingWindow(Preprocessing):
    """The last ``history_len`` observations stacked along a new leading axis (zeros before the episode has
    that many): shape (history_len,) + input_shape. Observations must have ``input_shape`` and ``dtype``."""

    def __init__(self, input_shape, history_len=4, dtype=np.float32):
        super(SlidingWindow, self).__init__(input_shape)
        self._history_len = history_len
        self._dtype = dtype
        self.reset()

    def output_shape(self):
        return (self._history_len,) + tuple(self._input_shape)

    def reset(self):
        self._window = _frame_stack(self._history_len, np.zeros(self._input_shape, self._dtype))

    def preprocess(self, x):
        if x.shape != self._input_shape:
            raise ValueError('SlidingWindow expects inputs of shape {0}, got {1}'.format(
                self._input_shape, x.shape))
        if x.dtype != self._dtype:
            raise ValueError('SlidingWindow expects inputs of dtype {0}, got {1}'.format(self._dtype, x.dtype))
        self._window.append(x)
        return np.stack(self._window)
