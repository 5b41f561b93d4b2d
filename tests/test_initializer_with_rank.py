"""initializer_with_rank and initializer arguments as CNTK 2.7 takes or refuses them (checked against CNTK 2.7)."""
import numpy as np
import pytest

import cntk as C
import cntk.initializer as I


def test_a_rank_given_when_the_initializer_was_made_is_overridden_only_by_the_same_value():
    r = I.initializer_with_rank(I.glorot_uniform(output_rank=1, seed=1), output_rank=1)
    assert (r.output_rank, r.filter_rank) == (1, I.SentinelValueForInferParamInitRank)
    r = I.initializer_with_rank(I.glorot_uniform(filter_rank=2, seed=1), filter_rank=2, output_rank=3)
    assert (r.output_rank, r.filter_rank) == (3, 2)
    with pytest.raises(ValueError, match="Output rank"):
        I.initializer_with_rank(I.glorot_uniform(output_rank=2, seed=1), filter_rank=1)
    with pytest.raises(ValueError, match="Filter rank"):
        I.initializer_with_rank(I.glorot_uniform(filter_rank=2, seed=1))
    with pytest.raises(ValueError, match="Output rank"):
        I.initializer_with_rank(I.normal(1, output_rank=2, seed=1), output_rank=1)
    # so in layers, which give their own ranks
    x = C.input_variable((2, 3))
    with pytest.raises(ValueError):
        C.layers.Dense(4, init=I.glorot_uniform(output_rank=2, seed=1))
    with pytest.raises(ValueError):
        C.layers.Dense(4, init=I.glorot_uniform(filter_rank=0, seed=1))
    w = C.layers.Dense(4, init=I.glorot_uniform(output_rank=1, seed=1))(x).W.value
    np.testing.assert_allclose(w.ravel()[:4], [-0.5672, -0.56328, -0.07558, -0.74203], atol=1e-5)


def test_uniform_constant_and_bilinear_initializers_keep_no_ranks_and_truncated_normal_has_none():
    u = I.uniform(1, seed=1)
    assert I.initializer_with_rank(u, output_rank=1, filter_rank=3) is u
    b = I.bilinear(2, 2)
    assert I.initializer_with_rank(b, output_rank=1) is b
    c = C.cntk_py.constant_initializer(1.0)
    assert I.initializer_with_rank(c, output_rank=1) is c
    with pytest.raises(RuntimeError):
        I.initializer_with_rank(I.truncated_normal(1, seed=1), output_rank=1)
    with pytest.raises(RuntimeError):   # layers give ranks to their initializers
        C.layers.Dense(4, init=I.truncated_normal(1, seed=1))
    with pytest.raises(TypeError):
        I.initializer_with_rank(np.ones(3), output_rank=2)
    with pytest.raises(TypeError):
        I.initializer_with_rank(1.0, output_rank=2)


def test_seeds_that_cntk_refuses():
    for seed in (-1, 1.5, "a"):
        with pytest.raises(NotImplementedError):
            I.uniform(1, seed=seed)
    with pytest.raises(NotImplementedError):
        I.glorot_uniform(seed=-1)
    with pytest.raises(NotImplementedError):
        I.truncated_normal(1, seed=-3)
    np.testing.assert_allclose(C.Parameter((2,), init=I.uniform(1, seed=2 ** 40)).value, [0.08372, 0.84911],
                               atol=1e-5)
    np.testing.assert_allclose(C.Parameter((2,), init=I.uniform(1, seed=True)).value, [-0.7322467, -0.7271859],
                               rtol=1e-6)


def test_bilinear_errors_are_runtime_errors():
    with pytest.raises(RuntimeError, match="square"):
        C.Parameter((1, 1, 4, 4), init=I.bilinear(4, 3)).value
    with pytest.raises(RuntimeError):
        C.Parameter((3, 4, 2), init=I.bilinear(2, 2)).value


def test_ranks_beyond_the_parameter_rank_are_refused_with_cntk_s_text(capfd):
    # golden text from CNTK 2.7 (the shape in Python order, as CNTK prints it there)
    for shape, kw, ranks in (((2, 3), dict(output_rank=3), (0, 3)), ((2, 3), dict(filter_rank=2), (2, 1)),
                             ((5,), dict(output_rank=2), (0, 2))):
        text = ("Sum of filter rank (%d) and output rank (%d) of the parameter initializer cannot exceed the Parameter "
                "shape '[%s]' rank (%d)" % (ranks + (" x ".join(map(str, shape)), len(shape))))
        p = C.parameter(shape, init=C.initializer.glorot_uniform(**kw))   # as in CNTK, drawn when first read
        with pytest.raises(ValueError) as raised:
            p.value
        assert str(raised.value) == text
        assert "About to throw exception '%s'" % text in capfd.readouterr().err
