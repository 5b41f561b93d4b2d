"""The predefined networks (outputs CNTK 2.7 computed from the same seeds), the dueling structure strings, and
the Huber and negative-entropy loss terms."""
import numpy as np
import pytest

import cntk as C
from cntk.contrib.deeprl.agent.shared.cntk_utils import huber_loss, negative_of_entropy_with_softmax
from cntk.contrib.deeprl.agent.shared.customized_models import conv_dqn
from cntk.contrib.deeprl.agent.shared.models import Models

X = np.array([[0.2, -0.4, 0.7]], np.float32)


def test_feedforward_network_is_cntk27s():
    C.cntk_py.reset_random_seed(0)
    m = Models.feedforward_network((3,), 2, '[4, 3]')
    assert [p.shape for p in m['f'].parameters] == [(3, 2), (2,), (4, 3), (3,), (3, 4), (4,)]
    np.testing.assert_allclose(m['f'].eval({m['inputs']: X}), [[-0.43012431263923645, -0.633819043636322]],
                               rtol=1e-5)
    np.testing.assert_allclose(m['loss'].eval({m['inputs']: X, m['outputs']: [[1, 2]]}), [8.982258796691895],
                               rtol=1e-5)    # squared error by default


def test_dueling_network_is_cntk27s():
    C.cntk_py.reset_random_seed(0)
    m = Models.dueling_network((3,), 3, '[4, [2], [None]]')
    q = m['f'].eval({m['inputs']: X})
    np.testing.assert_allclose(q, [[-0.1550581455230713, 0.03307393193244934, 0.12198421359062195]], rtol=1e-5)
    assert len(m['f'].parameters) == 8


def test_conv_dqn_is_cntk27s():
    C.cntk_py.reset_random_seed(0)
    m = conv_dqn((4, 84, 84), 3, use_placeholder_for_input=False)
    screens = (np.arange(4 * 84 * 84) % 251).reshape(1, 4, 84, 84).astype(np.float32)
    np.testing.assert_allclose(m['f'].eval({m['inputs']: screens}),
                               [[0.010103913024067879, -0.11133427917957306, 0.043554604053497314]],
                               rtol=1e-4, atol=1e-6)
    assert sorted(p.shape for p in m['f'].parameters) == [
        (3,), (32, 1, 1), (32, 4, 8, 8), (64, 1, 1), (64, 1, 1), (64, 4, 4, 512), (64, 32, 4, 4), (64, 64, 3, 3),
        (512,), (512, 3)]


def test_placeholder_input_and_custom_loss():
    m = Models.feedforward_network((2,), 1, '[]', loss_function=huber_loss, use_placeholder_for_input=True)
    assert m['inputs'].is_placeholder and m['outputs'].shape == (1,)
    x = C.input_variable(2)
    m['f'].replace_placeholder(x)
    assert m['f'].arguments == (x,)


def test_dueling_structure_strings():
    assert Models._parse_dueling_network_structure('[8, None, [4], [None, 2]]') == ([8], [4], [2])
    for bad in ('[[3], [4]]', '[2, 3, [4]]', '[2, [3], 4]'):
        with pytest.raises(ValueError):
            Models._parse_dueling_network_structure(bad)


def test_huber_loss_sums_over_elements():
    a, b = C.input_variable(3), C.input_variable(3)
    values = huber_loss(a, b).eval({a: np.array([[0, 0, 0], [1, -2, 0.5]], np.float32),
                                    b: np.array([[0.5, -1, 3], [1, 1, 1]], np.float32)})
    # 0.125 + 0.5 + 2.5 and 0 + 2.5 + 0.125
    np.testing.assert_allclose(np.ravel(values), [3.125, 2.625])


def test_negative_entropy_of_softmax():
    z = C.input_variable(3)
    values = np.ravel(negative_of_entropy_with_softmax(z).eval({z: np.array([[1, 2, 3], [0, 0, 0]], np.float32)}))
    p = np.exp([1, 2, 3]) / np.exp([1, 2, 3]).sum()
    np.testing.assert_allclose(values, [(p * np.log(p)).sum(), -np.log(3)], rtol=1e-6)
