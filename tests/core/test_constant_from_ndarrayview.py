"""A Constant or Parameter made from an NDArrayView takes its values (and precision), as in CNTK 2.7: a
UserLearner gets its gradients as NDArrayViews and may build its update from them."""
import numpy as np

import cntk as C


def test_constant_and_parameter_take_an_ndarrayviews_values():
    view = C.NDArrayView.from_dense(np.arange(6, dtype=np.float32).reshape(2, 3))
    c = C.constant(view)
    assert c.shape == (2, 3) and c.dtype == np.float32
    np.testing.assert_array_equal(c.value, np.arange(6).reshape(2, 3))
    assert C.constant(C.NDArrayView.from_dense(np.ones(2))).dtype == np.float64
    p = C.parameter(init=view)
    np.testing.assert_array_equal(p.value, np.arange(6).reshape(2, 3))


class _PlainSgd(C.UserLearner):
    def update(self, gradient_values, training_sample_count, sweep_end):
        eta = self.learning_rate() / training_sample_count
        for p, g in gradient_values.items():
            p.set_value((p - eta * C.constant(g)).eval(as_numpy=False).data)
        return True


def test_a_user_learner_builds_its_update_from_the_gradient_views():
    x, y = C.input_variable(2), C.input_variable(1)
    z = C.layers.Dense(1, init=C.glorot_uniform(seed=1))(x)
    mine = C.Trainer(z, (C.squared_error(z, y), None), _PlainSgd(z.parameters, C.learning_parameter_schedule(0.1)))
    feed = {x: np.array([[1, 2], [3, -1]], np.float32), y: np.array([[1], [0]], np.float32)}
    w0 = z.parameters[0].value.copy()
    mine.train_minibatch(feed)
    g = z.parameters[0].value - w0
    z2 = C.layers.Dense(1, init=C.glorot_uniform(seed=1))(x)
    sgd = C.Trainer(z2, (C.squared_error(z2, y), None), C.sgd(z2.parameters, C.learning_parameter_schedule(0.1)))
    sgd.train_minibatch(feed)
    np.testing.assert_allclose(g, z2.parameters[0].value - w0, rtol=1e-5)
