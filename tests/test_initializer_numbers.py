"""Random initializers draw CNTK 2.7's own numbers; golden values come from running CNTK 2.7 (CPU)."""
import numpy as np
import pytest

import cntk as C
from cntk import cntk_py
from cntk_compat.core.cntk_rng import MT19937_64


def hexes(values):
    return [float(v).hex() for v in values]


pytestmark = pytest.mark.usefixtures("fresh_automatic_seeds")  # golden values drawn from seed 0 on


def test_engine_is_cpp_mt19937_64():
    # the C++ standard fixes the 10000th output of a default-seeded (5489) std::mt19937_64
    assert MT19937_64(5489).draws(10000)[-1] == np.uint64(9981545732273789042)


def test_uniform_is_bit_identical_to_cntk():
    v = C.parameter((3, 4), init=C.uniform(1, seed=1)).value.ravel()
    assert hexes(v[:3]) == ['-0x1.76e90a0000000p-1', '-0x1.7451b60000000p-1',
                                              '-0x1.8fa5c40000000p-4']


def test_mlp_with_dropout_takes_cntk_seeds_and_values():
    x = C.input_variable(784)
    m = C.layers.Sequential([C.layers.Dense(128, activation=C.relu), C.layers.Dropout(0.5), C.layers.Dense(10)])(x)
    ps = {p.shape: p.value for p in m.parameters}
    w1, w2 = ps[(784, 128)], ps[(128, 10)]
    assert hexes(w1[0, :3]) == ['-0x1.c41b4e0000000p-5', '0x1.4702a20000000p-4', '-0x1.31effe0000000p-4']
    assert hexes(w1[783, 125:]) == ['-0x1.78b3780000000p-7', '-0x1.05031e0000000p-5', '-0x1.f973360000000p-6']
    assert float(w1.astype(np.float64).sum()) == pytest.approx(-18.045948292945013, abs=1e-9)
    # the dropout took seed 1, so the second Dense has seed 2
    assert hexes(w2[0, :3]) == ['0x1.58b5460000000p-3', '0x1.2b20c00000000p-3', '0x1.e4ced40000000p-4']
    assert cntk_py.get_random_seed() == 3


def test_double_precision_and_scale():
    p = C.parameter((2, 3), init=C.he_uniform(scale=2, seed=42), dtype=np.float64)
    np.testing.assert_allclose(p.value, [[1.76776939, 0.96323775, 1.74691319],
                                         [-2.51997677, 2.79392936, -2.81237723]], rtol=0, atol=5e-9)


def test_convolution_fans_use_cntk_shape_order():
    c = C.parameter((8, 3, 5, 5), init=C.glorot_uniform(output_rank=-1, filter_rank=2, seed=3)).value
    assert hexes(c.ravel()[:3]) == ['0x1.1c6fbc0000000p-6', '-0x1.70233a0000000p-4', '0x1.b4c81c0000000p-6']
    assert float(np.abs(c).max()) == pytest.approx(0.14746344089508057, abs=0)


def test_seed_is_taken_when_the_parameter_is_created():
    first, second = C.uniform(1), C.uniform(1)
    p2 = C.parameter((3, 4), init=second)
    p1 = C.parameter((3, 4), init=first)
    np.testing.assert_array_equal(p1.value, C.parameter((3, 4), init=C.uniform(1, seed=1)).value)
    np.testing.assert_array_equal(p2.value, C.parameter((3, 4), init=C.uniform(1, seed=0)).value)


def test_fixed_and_reset_seed_semantics():
    cntk_py.set_fixed_random_seed(7)
    assert cntk_py.is_random_seed_fixed() and cntk_py.generate_random_seed(False) == 7
    a = C.parameter((4,), init=C.glorot_uniform()).value
    b = C.parameter((4,), init=C.glorot_uniform()).value
    np.testing.assert_array_equal(a, b)
    explicit = C.parameter((4,), init=C.glorot_uniform(seed=3)).value
    assert not np.array_equal(explicit, a)
    cntk_py.reset_random_seed(10)
    assert not cntk_py.is_random_seed_fixed() and cntk_py.get_random_seed() == 10
    assert cntk_py.generate_random_seed(False) == 10 and cntk_py.get_random_seed() == 11


def test_fixed_seed_leaves_numpy_alone():
    np.random.seed(0)
    expected = np.random.rand(3)
    np.random.seed(0)
    cntk_py.set_fixed_random_seed(1)
    np.testing.assert_array_equal(np.random.rand(3), expected)


def test_ranks_beyond_the_shape_are_an_error():
    with pytest.raises(ValueError, match="output rank"):
        C.parameter((4,), init=C.glorot_uniform(output_rank=2)).value


@pytest.mark.parametrize("make, name", [(lambda: C.initializer.uniform(0), "uniform1"),
                                        (lambda: C.initializer.uniform(-1), "uniform1"),
                                        (lambda: C.initializer.glorot_uniform(-1), "glorotUniform"),
                                        (lambda: C.initializer.normal(0), "normal"),
                                        (lambda: C.initializer.he_normal(-2), "heNormal"),
                                        (lambda: C.initializer.truncated_normal(0), "TruncNormal")])
def test_a_scale_that_is_not_positive_is_refused_when_the_initializer_is_made(make, name):
    # CNTK 2.7's message (it says 0 for negative scales too)
    with pytest.raises(ValueError, match="CreateInitializer: scale value for initializer '%s' cannot be 0" % name):
        make()
