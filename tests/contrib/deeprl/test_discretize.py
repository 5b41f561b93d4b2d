"""BoxSpaceDiscretizer: cells numbered row-major, bin edges, points outside the box (CNTK 2.7's numbers)."""
import numpy as np
import pytest

from cntk.contrib.deeprl.agent.shared.discretize import BoxSpaceDiscretizer


def test_cells_of_a_box_with_per_coordinate_resolutions(spaces):
    d = BoxSpaceDiscretizer(spaces.Box([-1.0, 0.0, 2.0], [1.0, 5.0, 3.0]), np.array([4, 5, 2]))
    assert d.num_states == 40
    points = ([-1, 0, 2], [-0.5, 1.0, 2.5], [0.0, 4.999, 2.49], [1, 5, 3], [-7, 9, 2.5], [0.49999, 2.0, 2.0])
    assert [d.discretize(p) for p in points] == [0, 13, 28, 39, 9, 24]


def test_bin_edges_with_a_scalar_resolution(spaces):
    d = BoxSpaceDiscretizer(spaces.Box(0, 1, (2,)), 3)
    assert d.num_states == 9
    assert [d.discretize(p) for p in ([1 / 3, 2 / 3], [0.3333, 0.6666], [0.99, 0.01])] == [5, 1, 6]
    assert isinstance(d.discretize([0.5, 0.5]), int)


def test_only_box_spaces(spaces):
    with pytest.raises(ValueError):
        BoxSpaceDiscretizer(spaces.Discrete(3), 2)
