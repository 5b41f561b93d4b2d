"""cntk.contrib.netopt: factoring Dense layers and binarizing convolutions, against numbers CNTK 2.7 printed for
the same graphs (Manual_How_to_use_network_optimizations uses them)."""
import numpy as np
import pytest

import cntk as C
import cntk.contrib.netopt as netopt
import cntk.contrib.netopt.factorization as nc
import cntk.contrib.netopt.quantization as cq
from cntk.logging.graph import depth_first_search


def _two_conv_model():
    x, y = C.input_variable((2, 6, 6)), C.input_variable(3)
    with C.layers.default_options(init=C.glorot_uniform(), activation=C.relu):
        h = C.layers.Convolution2D((3, 3), 4, strides=(2, 2), pad=True, name='c1')(x)
        h = C.layers.Convolution2D((3, 3), 5, strides=(1, 1), pad=False, name='c2')(h)
        z = C.layers.Dense(3, activation=None, name='d')(h)
    return z, x, y


def test_binary_convolution_numbers_are_cntk27s():
    C.cntk_py.set_fixed_random_seed(1)
    z, x, y = _two_conv_model()
    b = cq.convert_to_binary_convolution(z)
    kinds = [(f.op_name, f.is_block) for f in depth_first_search(b, lambda n: isinstance(n, C.Function), depth=0)]
    assert kinds.count(('BinaryConvolution', True)) == 2 and ('Convolution', True) not in kinds
    filters = sorted(round(float(np.abs(p.value).sum()), 5) for p in b.parameters if p.name == 'filter')
    assert filters == [17.83284, 26.19045]        # fresh glorot_uniform filters, CNTK's seeds
    assert {p.uid for p in b.parameters} - {p.uid for p in z.parameters} == \
        {p.uid for p in b.parameters if p.name == 'filter'}      # bias and Dense shared, old kernels gone
    rng = np.random.RandomState(3)
    by_key = {(p.name, p.shape): p for p in b.parameters}
    for key in [('W', (5, 1, 1, 3)), ('b', (3,)), ('filter', (5, 4, 3, 3)), ('filter', (4, 2, 3, 3)),
                ('b', (4, 1, 1)), ('b', (5, 1, 1))]:
        by_key[key].value = rng.uniform(-1, 1, key[1]).astype(np.float32)
    X = rng.uniform(-1.5, 1.5, (4, 2, 6, 6)).astype(np.float32)
    Y = np.eye(3, dtype=np.float32)[[0, 1, 2, 1]]
    np.testing.assert_allclose(b.eval({x: X}), [[-0.508004, -0.876537, -1.695166], [-0.284658, -1.71517, -1.322025],
                                                [-1.535318, -1.810711, -2.716026], [-1.577288, -1.75653, -2.90451]],
                               atol=2e-6)
    loss = C.cross_entropy_with_softmax(b, y)
    g = loss.grad({x: X, y: Y}, wrt=b.parameters)
    sums = {('filter', (5, 4, 3, 3)): -0.48657, ('filter', (4, 2, 3, 3)): 2.54523, ('b', (4, 1, 1)): 0.30796,
            ('b', (5, 1, 1)): 0.6616}
    for key, total in sums.items():
        assert abs(float(g[by_key[key]].sum()) - total) < 2e-5, key
    np.testing.assert_allclose(g[by_key[('filter', (4, 2, 3, 3))]].ravel()[:6],
                               [-0.19795, -0.02236, 0.48748, 0.39026, -0.25664, -0.66472], atol=1e-5)
    trainer = C.Trainer(b, (loss, C.classification_error(b, y)),
                        [C.sgd(b.parameters, C.learning_parameter_schedule(0.1))])
    losses = []
    for _ in range(3):
        trainer.train_minibatch({x: X, y: Y})
        losses.append(trainer.previous_minibatch_loss_average)
    np.testing.assert_allclose(losses, [1.35406208, 1.30204201, 1.17175412], rtol=1e-6)


DATA = np.array([[0.3, -1.2, 0.0, 2.5, -0.4], [1., 2., 3., -4., 0.5]], np.float32)


@pytest.mark.parametrize("make, value, gradient", [
    (lambda v: cq.CustomMultibit(v, 1), [[0.88, -0.88, -0.88, 0.88, -0.88], [2.1, 2.1, 2.1, -2.1, 2.1]],
     [[1, 0, 1, 0, 1], [1, 0, 0, 0, 1]]),
    (lambda v: cq.CustomMultibit(v, 2), [[0.104, -1.656, -0.104, 1.656, -0.104], [0.98, 0.98, 3.22, -3.22, 0.98]],
     [[1, 1, 1, 0, 1], [1, 1, 0, 0, 1]]),
    (lambda v: cq.CustomMultibit(v, [1, 2, 3, 1, 2]),
     [[0.88, -1.44, 0.0, 0.88, -0.32], [2.1, 1.233333, 3.0, -2.1, 1.233333]], [[1, 1, 1, 0, 1], [1, 1, 1, 0, 1]]),
    (lambda v: cq.CustomPySign(v), [[1, -1, -1, 1, -1], [1, 1, 1, -1, 1]], [[1, 0, 1, 0, 1], [1, 0, 0, 0, 1]]),
    (lambda v: cq.CustomSign(v), [[1, -1, -1, 1, -1], [1, 1, 1, -1, 1]], [[1, 0, 1, 0, 1], [1, 0, 0, 0, 1]]),
])
def test_binarizing_ops_and_their_straight_through_gradients(make, value, gradient):
    v = C.input_variable(5, needs_gradient=True)
    f = make(v)
    np.testing.assert_allclose(f.eval({v: DATA}), value, atol=1e-6)
    np.testing.assert_array_equal(f.grad({v: DATA}), gradient)


def test_multibit_kernel_scales_each_kernel():
    # CNTK 2.7's own MultibitKernel cannot be built (TypeError: '>' not supported between instances of 'Constant'
    # and 'int'); cntk-compat computes what it documents: one mean(|w|) per kernel (first axis)
    w = C.parameter((2, 3), init=np.array([[1., -2., 3.], [0.5, 0.5, -0.5]], np.float32))
    np.testing.assert_allclose(cq.CustomMultibitKernel(w, 1).eval(), [[2, -2, 2], [0.5, 0.5, -0.5]])


def test_factor_dense_is_a_truncated_svd_without_activation():
    xi = C.input_variable(4)
    first, second = C.layers.Dense(6), C.layers.Dense(6, activation=C.tanh)
    d = second(first(xi))
    f = nc.factor_dense(d, projection_function=lambda W: 2)
    blocks = [n.op_name for n in depth_first_search(f, lambda n: isinstance(n, C.Function), depth=0)
              if n.is_block]
    assert blocks == ['DenseFactored', 'DenseFactored']
    assert sorted((p.name, p.shape) for p in f.parameters) == \
        [('W1', (4, 2)), ('W1', (6, 2)), ('W2', (2, 6)), ('W2', (2, 6)), ('b', (6,)), ('b', (6,))]
    X = np.random.RandomState(0).randn(3, 4).astype(np.float32)
    h = X
    for layer in (first, second):
        W, b = layer.W.value, layer.b.value
        U, s, V = np.linalg.svd(W, full_matrices=False)
        h = h.dot(U[:, :2]).dot(np.diag(s[:2]).dot(V[:2])) + b      # no activation (as CNTK 2.7's)
    np.testing.assert_allclose(f.eval({xi: X}), h, rtol=1e-4, atol=1e-5)
    only_square = nc.factor_dense(d, projection_function=lambda W: 1,
                                  filter_function=lambda block: block.W.shape[0] == 6)
    assert [n.op_name for n in depth_first_search(only_square, lambda n: isinstance(n, C.Function), depth=0)
            if n.is_block] == ['DenseFactored', 'Dense']
    with pytest.raises(ValueError, match=r"^Dense: default factor function \(svd\) requires a "
                                         r"projection_function\.$"):
        nc.factor_dense(d)


def test_factor_beyond_the_rank_keeps_the_arrays_shapes():
    xi = C.input_variable(50)
    d = C.layers.Dense(2)(xi)
    f = nc.factor_dense(d, projection_function=lambda W: int(len(W) * 0.6))     # k = 30 > rank 2
    assert sorted((p.name, p.shape) for p in f.parameters) == [('W1', (50, 2)), ('W2', (2, 2)), ('b', (2,))]


def test_native_lowering_is_unavailable_as_in_a_cntk_without_its_plugin():
    assert netopt.native_convolve_function_registered is False
    C.cntk_py.set_fixed_random_seed(1)
    z, x, y = _two_conv_model()
    trained = []
    with pytest.raises(Exception, match=r"^Could not find Cntk\.BinaryConvolution-2\.7 library\. Please check if "
                                        r"HALIDE_PATH is configured properly and try building "
                                        r"Extnsibiliy\\BinaryConvolution again$"):
        cq.binarize_convolution(z, trained.append, lambda layer: layer.name != 'c1')
    # the filter_function is not used (CNTK 2.7): both convolutions were binarized and trained
    kinds = [f.op_name for f in depth_first_search(trained[0], lambda n: isinstance(n, C.Function), depth=0)]
    assert kinds.count('BinaryConvolution') == 2


def test_registering_a_native_plugin_fails_as_cntk_fails_for_a_missing_one(capsys):
    # CNTK 2.7 without its Halide library: "About to throw exception 'Plugin not found: 'Cntk.BinaryConvolution-2.7.so'
    # (error: <the loader's message>)'" on stderr, then a RuntimeError (cntk.contrib.netopt catches it on import)
    with pytest.raises(RuntimeError, match=r"^Plugin not found: 'Cntk\.BinaryConvolution-2\.7\.so' \(error: "):
        C.ops.register_native_user_function('NativeBinaryConvolveFunction', 'Cntk.BinaryConvolution-2.7',
                                            'CreateBinaryConvolveFunction')
    assert "\nAbout to throw exception 'Plugin not found: 'Cntk.BinaryConvolution-2.7.so' (error: " \
        in capsys.readouterr().err
