"""Mapping points of a continuous box onto the cells of a regular grid."""
import numpy as np

from .gym_spaces import space_kind


class BoxSpaceDiscretizer:
    """Splits each coordinate of a gym Box space into ``resolution`` equal bins and numbers the grid cells
    0 .. num_states - 1, the first coordinate varying slowest (row-major order).

    ``resolution`` is a scalar (the same bin count for every coordinate) or an array shaped like the space.
    """

    def __init__(self, space, resolution):
        if space_kind(space) != 'box':
            raise ValueError('BoxSpaceDiscretizer needs a Box space, not {0}'.format(space))
        assert np.isscalar(resolution) or np.shape(resolution) == space.low.shape
        self._state_mins = space.low
        self._state_maxs = space.high
        self._state_resolutions = np.zeros(space.low.shape) + resolution
        self.num_states = int(np.prod(self._state_resolutions))

    def discretize(self, value):
        """Number of the grid cell holding ``value`` (values outside the box go to the border cells)."""
        cell = 0
        for where, x in np.ndenumerate(value):
            bins = self._state_resolutions[where]
            cell = cell * bins + self._bin(x, self._state_mins[where], self._state_maxs[where], bins)
        return int(cell)

    @staticmethod
    def _bin(x, low, high, bins):
        if x >= high:
            return bins - 1
        if x <= low:
            return 0
        return int(min(bins - 1, max(0, np.floor((x - low) * bins / (high - low)))))
