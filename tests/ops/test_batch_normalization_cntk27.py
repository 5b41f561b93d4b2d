"""BatchNormalization as CNTK 2.7 (CPU) trains it: the blend time constant never enters the training statistics,
minibatches of sequences are normalized over CNTK's packed layout (its gaps counted as zeros), and the fallback
from cuDNN is announced once per compiled network. Values from CNTK 2.7."""
import numpy as np
import pytest

import cntk as C
from cntk.layers import BatchNormalization


def fill(shape, k):
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * 0.37 + k) * 0.5).reshape(shape).astype(np.float32)


@pytest.mark.parametrize("time_constant, blend", [(5000, 10), (5000, np.inf), (np.inf, np.inf)])
def test_training_ignores_the_blend_time_constant(time_constant, blend):
    x, y = C.input_variable(4), C.input_variable(4)
    f = BatchNormalization(normalization_time_constant=time_constant, blend_time_constant=blend,
                           use_cntk_engine=True)(x)
    loss = C.reduce_sum(C.square(f - y))
    t = C.Trainer(f, (loss, loss), C.sgd(f.parameters, C.learning_parameter_schedule(0.1)))
    want = [([-1.359713, -1.373981, -1.376006, -1.355483, 0.343158, 0.396981], 7.99989636739095),
            ([-0.831382, -0.80659, -0.771973, -0.73579, 0.312965, 0.255987], 5.120016415913899),
            ([-0.407798, -0.392766, -0.38338, -0.380826, 0.328846, 0.301166], 3.2768227259318032)]
    for i, (head, average) in enumerate(want):
        d = fill((3, 4), i) + np.arange(3)[:, None].astype(np.float32) * (i + 1)
        _, outs = t.train_minibatch({x: d, y: np.ones((3, 4), np.float32)}, outputs=[f.output])
        np.testing.assert_allclose(outs[f.output].ravel()[:6], head, atol=2e-6)
        assert t.previous_minibatch_loss_average == pytest.approx(average, rel=1e-6)
    if time_constant == 5000:
        np.testing.assert_allclose(f.eval({x: d}).ravel()[:6],
                                   [0.135491, 0.009678, -0.184376, -0.445284, 1.264311, 1.330811], atol=2e-6)


def test_sequences_are_normalized_over_the_packed_layout():
    # lengths 4, 1, 1 pack into two slots of 4 steps: two gaps, counted as zeros in the statistics
    x = C.sequence.input_variable((2, 2, 2), needs_gradient=True)
    f = BatchNormalization(normalization_time_constant=5000, map_rank=1)(x)
    lens = (4, 1, 1)
    d = [fill((n, 2, 2, 2), i) + i for i, n in enumerate(lens)]
    state, out = f.forward({x: d}, keep_for_backward={f.output})
    np.testing.assert_allclose(np.concatenate(out[f.output]).ravel()[:8], [
        -0.578242, -0.362047, -0.175113, -0.042741, 0.241142, 0.215912, 0.095823, -0.102869], atol=2e-6)
    g = f.backward(state, {f.output: [fill((n, 2, 2, 2), 3) for n in lens]}, {x} | set(f.parameters))
    np.testing.assert_allclose(np.concatenate(g[x]).ravel()[:8], [
        0.101063, -0.095302, -0.276509, -0.418033, -0.443289, -0.467429, -0.436809, -0.355573], atol=2e-6)
    scale, bias = sorted(f.parameters, key=lambda p: p.name, reverse=True)
    np.testing.assert_allclose(g[scale], [-2.893572, -9.944758], rtol=1e-5)
    np.testing.assert_allclose(g[bias], [-2.119943, -3.443743], rtol=1e-5)
    np.testing.assert_allclose(np.concatenate(f.eval({x: d})).ravel()[:8], [
        -0.569135, -0.356345, -0.172355, -0.042067, 0.237345, 0.212511, 0.094314, -0.101249], atol=2e-6)


NOTICE = "\nWARNING: batch normalization falls back to cntk engine for parameters not supported by cuDnn.\n"


@pytest.mark.parametrize("time_constant, blend, cntk_engine, notices", [
    (5000, 0, False, 0), (5000, 10, False, 1), (5000, np.inf, False, 1), (5000, 10, True, 0), (0, np.inf, False, 1),
    (np.inf, 10, False, 1), (np.inf, np.inf, False, 0), (-1, 10, False, 1)])
def test_the_cudnn_fallback_notice(time_constant, blend, cntk_engine, notices, capfd):
    x = C.input_variable(4)
    f = BatchNormalization(normalization_time_constant=time_constant, blend_time_constant=blend,
                           use_cntk_engine=cntk_engine)(x)
    capfd.readouterr()
    f.eval({x: np.ones((2, 4), np.float32)})
    assert capfd.readouterr().err == NOTICE * notices


def test_the_notice_comes_once_per_compiled_network(capfd):
    x = C.input_variable(4)
    f = BatchNormalization(blend_time_constant=10)(x)
    capfd.readouterr()
    f.eval({x: np.ones((2, 4), np.float32)})
    f.eval({x: np.ones((3, 4), np.float32)})
    assert capfd.readouterr().err == NOTICE
    f.grad({x: np.ones((2, 4), np.float32)}, wrt=f.parameters)     # CNTK compiles again to differentiate
    assert capfd.readouterr().err == NOTICE
    C.combine([f, f * 2]).eval({x: np.ones((2, 4), np.float32)})
    assert capfd.readouterr().err == NOTICE
    g = BatchNormalization(blend_time_constant=10)(C.input_variable(4))
    state, _ = g.forward({g.arguments[0]: np.ones((2, 4), np.float32)}, keep_for_backward={g.output})
    g.eval({g.arguments[0]: np.ones((2, 4), np.float32)})            # the differentiable network serves
    assert capfd.readouterr().err == NOTICE
