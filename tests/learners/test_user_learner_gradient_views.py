"""UserLearner.update gets its gradients as NDArrayViews, with as_numpy True (the default) or False: CNTK 2.7
does so (checked with a probe of both; the UserLearner examples beside CNTK's ResNet example call
``gradient_values[p].to_ndarray()``); an NDArrayView has no arithmetic, its values come from to_ndarray()."""
import numpy as np
import pytest

import cntk as C


class _Probe(C.learners.UserLearner):
    def update(self, gradient_values, training_sample_count, sweep_end):
        self.got = []
        for p, g in gradient_values.items():
            self.got.append((type(g), g.shape, g.to_ndarray().copy(), np.array_equal(g.asarray(), g.to_ndarray())))
            with pytest.raises(TypeError):
                g * 2.0
            p.value = p.value - 0.1 * g.to_ndarray().astype(np.float64)   # float64 values stored as float32
        return True


@pytest.mark.parametrize("as_numpy", [True, False])
def test_gradients_are_ndarrayviews(as_numpy):
    x = C.input_variable(3)
    w = C.parameter((3, 2), init=0.5)
    loss = C.reduce_sum(C.times(x, w))
    learner = _Probe(loss.parameters, C.learning_rate_schedule(0.1, C.UnitType.sample), as_numpy=as_numpy)
    C.Trainer(None, (loss, loss), [learner]).train_minibatch({x: np.ones((2, 3), np.float32)})
    (kind, shape, values, same), = learner.got
    assert kind is C.NDArrayView and shape == (3, 2) and same
    np.testing.assert_array_equal(values, np.full((3, 2), 2.0, np.float32))
    assert w.value.dtype == np.float32
    np.testing.assert_allclose(w.value, np.full((3, 2), 0.3), rtol=1e-6)
