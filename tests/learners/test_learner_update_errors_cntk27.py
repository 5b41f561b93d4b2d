"""Learner.update without a gradient for one of its parameters is CNTK 2.7's RuntimeError (session 20 sweep; still
a ValueError too, as it was)."""
import numpy as np
import pytest

import cntk as C


def test_a_missing_gradient_is_a_runtime_error():
    x = C.input_variable(3)
    z = C.layers.Dense(2)(x)
    for learner in (C.momentum_sgd(z.parameters, 0.1, 0.9),
                    C.universal(lambda ps, gs: C.combine([C.assign(p, p - 0.05 * g) for p, g in zip(ps, gs)]),
                                z.parameters)):
        w = learner.parameters[0]
        for error in (RuntimeError, ValueError):
            with pytest.raises(error, match="no gradient for parameter"):
                learner.update({w: np.ones(w.shape, np.float32)}, 2)
