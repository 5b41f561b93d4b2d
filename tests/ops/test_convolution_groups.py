"""Grouped convolutions as CNTK 2.7 checks them when the graph is built (errors and values from CNTK 2.7)."""
import numpy as np
import pytest

import cntk as C


@pytest.mark.parametrize("channels, maps, kernel_channels, groups, message", [
    (5, 6, 2, 2, r"number of input channels \(C\) must be equal to number of input kernel channels \(kC\) \* groups"),
    (4, 6, 3, 2, r"number of input channels \(C\) must be equal to number of input kernel channels \(kC\) \* groups"),
    (4, 4, 4, 2, r"number of input channels \(C\) must be equal to number of input kernel channels \(kC\) \* groups"),
    (4, 6, 1, 4, "number of output channels must be divisble by groups"),
])
def test_refused_when_built(channels, maps, kernel_channels, groups, message, capfd):
    x = C.input_variable((channels, 5, 5))
    with pytest.raises(RuntimeError, match="groups: " + message):
        C.convolution(C.parameter((maps, kernel_channels, 3, 3), init=0.1), x, groups=groups,
                      auto_padding=[False, True, True])
    assert "About to throw exception 'groups: " in capfd.readouterr().err


@pytest.mark.parametrize("channels, maps, kernel_channels, groups, total", [
    (4, 4, 1, 4, 67.6), (4, 8, 2, 2, 270.40002)])
def test_computed(channels, maps, kernel_channels, groups, total):
    x = C.input_variable((channels, 5, 5))
    f = C.convolution(C.parameter((maps, kernel_channels, 3, 3), init=0.1), x, groups=groups,
                      auto_padding=[False, True, True])
    assert f.shape == (maps, 5, 5)
    assert f.eval({x: np.ones((1, channels, 5, 5), np.float32)}).sum() == pytest.approx(total, rel=1e-6)
