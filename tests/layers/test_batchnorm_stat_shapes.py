"""Batch normalization's running statistics: per-element statistics of a multi-axis operand are vectors, as CNTK
2.7 infers them, and they are updated as CNTK 2.7 updates them (shapes and values from CNTK 2.7)."""
import numpy as np

import cntk as C


def test_per_element_statistics_are_flat_vectors():
    xi = C.input_variable((2, 3, 3))
    m = C.layers.BatchNormalization()(xi)
    assert [(p.name, p.shape) for p in m.parameters] == [('scale', (18,)), ('bias', (18,))]
    assert [(c.name, c.shape) for c in m.constants] == [('aggregate_mean', (18,)), ('aggregate_variance', (18,)),
                                                         ('aggregate_count', ())]
    assert [p.shape for p in C.layers.BatchNormalization()(C.input_variable((2, 3))).parameters] == [(6,), (6,)]
    assert [p.shape for p in C.layers.BatchNormalization(map_rank=1)(C.input_variable((2, 3, 3))).parameters] == \
        [(2,), (2,)]


def test_flat_statistics_normalize_each_element():
    xi = C.input_variable((2, 3, 3))
    m = C.layers.BatchNormalization()(xi)
    lab = C.input_variable((2, 3, 3))
    X = np.arange(36, dtype=np.float32).reshape(2, 2, 3, 3)
    t = C.Trainer(m, C.squared_error(m, lab), C.sgd(m.parameters, 0.1))
    t.train_minibatch({xi: X, lab: np.ones_like(X)})
    # CNTK 2.7: every element of the first sample is -0.3657 after one step (two samples differing by 18)
    np.testing.assert_allclose(m.eval({xi: X})[0, 0], np.full((3, 3), -0.3657), atol=1e-4)


def test_all_devices_is_a_tuple():
    assert isinstance(C.device.all_devices(), tuple)


def test_an_infinite_time_constant_takes_the_first_minibatch_then_freezes():
    # as CNTK 2.7: the first minibatch sets the running statistics whatever the time constant
    x = C.input_variable(3)
    y = C.input_variable(2)
    z = C.layers.Dense(2, init=C.initializer.uniform(1, seed=2))(
        C.layers.BatchNormalization(normalization_time_constant=np.inf)(x))
    trainer = C.Trainer(z, (C.cross_entropy_with_softmax(z, y), None),
                        [C.sgd(z.parameters, C.learning_parameter_schedule(0.1))])
    first = np.array([[1, 2, 3], [3, 2, 5]], np.float32)
    second = np.array([[7, 0, 1], [5, 4, 1]], np.float32)
    labels = np.eye(2, dtype=np.float32)
    trainer.train_minibatch({x: first, y: labels})
    trainer.train_minibatch({x: second, y: labels})
    stats = {c.name: c.value for c in z.constants}
    np.testing.assert_array_equal(stats["aggregate_mean"], [2, 2, 4])
    np.testing.assert_array_equal(stats["aggregate_variance"], [2, 0, 2])
    assert stats["aggregate_count"] == 4
    np.testing.assert_allclose(z.eval({x: second}), [[-331.79346, -568.321], [338.55475, 575.1469]], rtol=1e-5)
