"""Per-element batch normalization statistics of a multi-axis operand are vectors, as CNTK 2.7 infers them
(shapes from CNTK 2.7)."""
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
