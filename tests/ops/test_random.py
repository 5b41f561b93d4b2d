"""cntk.random samplers, random_sample and random_sample_inclusion_frequency, dropout seeds."""
import numpy as np
import pytest

import cntk as C
import cntk.random as cr


def test_inclusion_frequency_with_replacement_is_proportional():
    f = C.random_sample_inclusion_frequency(np.array([1.0, 2.0, 3.0], np.float32), 42, True).eval()
    np.testing.assert_allclose(f, [7.0, 14.0, 21.0], rtol=1e-5)


def test_inclusion_frequency_without_replacement_docstring_example():
    w = np.concatenate((np.full(100, 1000.0), np.full(100, 1.0))).astype(np.float32)
    f = C.random_sample_inclusion_frequency(w, 150, False).eval()
    assert f[0] == pytest.approx(1.0)
    f = C.random_sample_inclusion_frequency(w, 150, True).eval()
    assert f[0] == pytest.approx(1.4985015, rel=1e-5)
    assert f[110] == pytest.approx(0.0014985015, rel=1e-5)


@pytest.mark.parametrize("weights, n, dup", [([1.0, -1.0], 1, True), ([42.0] * 4, 50, False)])
def test_invalid_sampling_raises(weights, n, dup):
    with pytest.raises(ValueError):
        C.random_sample(np.array(weights, np.float32), n, dup).eval()


def test_random_sample_without_replacement_takes_each_positive_class_once():
    s = C.random_sample(np.array([1.0, 3.0, 50.0, 1.0, 0.0], np.float32), 4, False)
    assert s.shape == (4, 5)
    np.testing.assert_array_equal(C.times(s, np.identity(5)).eval().sum(0), [1, 1, 1, 1, 0])


def test_seeded_sampler_continues_its_stream():
    op1 = cr.normal((256,), np.float64, 0.5, 2.0, seed=98052)
    op2 = cr.normal((512,), np.float64, 0.5, 2.0, seed=98052)
    a, b = op1.eval(), op1.eval()
    np.testing.assert_allclose(op2.eval(), np.concatenate([a, b]))


def test_like_samplers_follow_the_input():
    x = C.input_variable(1)
    value = cr.bernoulli_like(x, 0.3, seed=1).eval({x: np.zeros((20000, 1), np.float32)})
    assert value.shape == (20000, 1)
    assert abs(value.mean() - 0.3) < 0.02


def test_dropout_seed_gives_equal_masks_in_training_forward():
    a = C.input_variable((50, 50), needs_gradient=True)
    v = np.ones((1, 50, 50), np.float32)

    def mask(node):
        return list(node.forward({a: v}, node.outputs, set(node.outputs))[1].values())[0]

    m1, m2 = mask(C.dropout(a, 0.5, seed=7)), mask(C.dropout(a, 0.5, seed=7))
    np.testing.assert_array_equal(m1, m2)
    assert not np.array_equal(m1, mask(C.dropout(a, 0.5, seed=8)))
    np.testing.assert_array_equal(C.dropout(a, 0.5).eval({a: v}), v)  # eval is inference


def test_set_attribute_changes_dropout_rate_and_seed():
    a = C.input_variable((100, 100), needs_gradient=True)
    node = C.dropout(a, 0.1)
    node.set_attribute('dropoutRate', 0.75)
    assert node.root_function.attributes['dropoutRate'] == 0.75
    out = list(node.forward({a: np.ones((1, 100, 100), np.float32)}, node.outputs, set(node.outputs))[1].values())[0]
    assert abs(np.count_nonzero(out) / out.size - 0.25) < 0.02
    u = cr.uniform((3,), seed=1)
    first = u.eval()
    u.set_attribute('rngSeed', 2)
    assert not np.array_equal(u.eval(), first)
    u.set_attribute('rngSeed', 1)
    np.testing.assert_array_equal(u.eval(), first)
    with pytest.raises(RuntimeError, match="Cannot set dropout rate on 'RandomDistribution' function"):
        u.set_attribute('dropoutRate', 0.5)
