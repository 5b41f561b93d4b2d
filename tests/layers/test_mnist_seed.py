"""The seed's MNIST conv net, its graph-API version and the logistic regression Dense layer."""
import numpy as np
import pytest
import torch

import cntk
from cntk_compat.core.engine import evaluate_tensors


def create_model_mn():
    with cntk.layers.default_options(activation=cntk.ops.relu, pad=False):
        return cntk.layers.Sequential([
            cntk.layers.Convolution2D((5, 5), num_filters=32, reduction_rank=0, pad=True),
            cntk.layers.MaxPooling((3, 3), strides=(2, 2)),
            cntk.layers.Convolution2D((3, 3), num_filters=48),
            cntk.layers.MaxPooling((3, 3), strides=(2, 2)),
            cntk.layers.Convolution2D((3, 3), num_filters=64),
            cntk.layers.Dense(96),
            cntk.layers.Dropout(dropout_rate=0.5),
            cntk.layers.Dense(10, activation=None)])


def test_model_prints_and_parameter_shapes():
    model_mn = create_model_mn()
    assert str(model_mn) == "Composite(keep: Sequence[tensor]) -> Sequence[tensor]"
    model = model_mn(cntk.input_variable((28, 28)))
    assert str(model) == "Composite(Tensor[28,28]) -> Tensor[10]"
    shapes = sorted(p.shape for p in model.parameters)
    assert shapes == sorted([(32, 1, 5, 5), (32, 1, 1), (48, 32, 3, 3), (48, 1, 1), (64, 48, 3, 3), (64, 1, 1),
                             (64, 3, 3, 96), (96,), (96, 10), (10,)])
    assert model(np.zeros((2, 28, 28), np.float32)).shape == (2, 10)


def test_graph_api_criterion_prints():
    images = cntk.input_variable((28, 28), name="images")
    with cntk.layers.default_options(activation=cntk.ops.relu, pad=False):
        r = cntk.layers.Convolution2D((5, 5), num_filters=32, reduction_rank=0, pad=True)(images)
        r = cntk.layers.MaxPooling((3, 3), strides=(2, 2))(r)
        r = cntk.layers.Convolution2D((3, 3), num_filters=48)(r)
        r = cntk.layers.MaxPooling((3, 3), strides=(2, 2))(r)
        r = cntk.layers.Convolution2D((3, 3), num_filters=64)(r)
        r = cntk.layers.Dense(96)(r)
        r = cntk.layers.Dropout(dropout_rate=0.5)(r)
        model_mn = cntk.layers.Dense(10, activation=None)(r)
    labels = cntk.input_variable(10, is_sparse=True, name="labels")
    criterion = cntk.combine([cntk.cross_entropy_with_softmax(model_mn, labels),
                              cntk.classification_error(model_mn, labels)])
    assert str(criterion) == \
        "Composite(images: Tensor[28,28], labels: SparseTensor[10]) -> Tuple[Tensor[1], Tensor[1]]"


def test_logistic_regression_dense():
    model_lr = cntk.layers.Dense(2, activation=None)(cntk.input_variable(2))
    assert str(model_lr) == "Dense(Tensor[2]) -> Tensor[2]"
    assert model_lr.W.shape == (2, 2) and model_lr.b.shape == (2,)


def test_dense_weight_shape_keeps_input_axes():
    assert cntk.layers.Dense(5)(cntk.input_variable((64, 16, 16))).W.shape == (64, 16, 16, 5)


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match=r"kernel dim 5 <= input dim 3"):   # CNTK 2.7's message
        cntk.layers.Convolution2D((5, 5), num_filters=4)(cntk.input_variable((1, 3, 3)))
    with pytest.raises(ValueError, match="kernel"):
        cntk.layers.Convolution2D((3, 3), num_filters=4)(cntk.input_variable((8,)))
    with pytest.raises(ValueError, match="filter_shape"):
        cntk.layers.Convolution2D((3, 3, 3), num_filters=4)


_FONT = ["01110100011001110101110011000101110", "00100011000010000100001000010001110",
         "01110100010000100010001000100011111", "11111000100010000010000011000101110",
         "00010001100101010010111110001000010", "11111100001111000001000011000101110",
         "00110010001000011110100011000101110", "11111000010001000100010000100001000",
         "01110100011000101110100011000101110", "01110100011000101111000010001001100"]


def _digits(n, rng):
    glyphs = np.array([[int(c) for c in g] for g in _FONT], np.float32).reshape(10, 7, 5)
    labels = rng.randint(0, 10, n)
    images = np.zeros((n, 28, 28), np.float32)
    for i, d in enumerate(labels):
        big = np.kron(glyphs[d], np.ones((3, 3), np.float32))
        r, c = rng.randint(0, 28 - 21), rng.randint(0, 28 - 15)
        images[i, r:r + 21, c:c + 15] = big
    images += rng.normal(0, 0.3, images.shape).astype(np.float32)
    return images, np.eye(10, dtype=np.float32)[labels]


def test_small_conv_net_learns_digits():
    torch.manual_seed(0)
    rng = np.random.RandomState(0)
    x = cntk.input_variable((28, 28))
    y = cntk.input_variable(10)
    with cntk.layers.default_options(activation=cntk.ops.relu):
        z = cntk.layers.Sequential([cntk.layers.Convolution2D((5, 5), 8, reduction_rank=0, pad=True),
                                    cntk.layers.MaxPooling((2, 2), strides=2),
                                    cntk.layers.Dense(10, activation=None)])(x)
    loss = cntk.cross_entropy_with_softmax(z, y)
    err = cntk.classification_error(z, y)
    params = [p.tensor for p in loss.parameters]
    for step in range(150):
        X, Y = _digits(32, rng)
        (l,), _ = evaluate_tensors([loss.output], {x: X, y: Y}, requires_grad=True, training=True)
        grads = torch.autograd.grad(l.sum() / 32, params)
        with torch.no_grad():
            for p, g in zip(params, grads):
                p -= 0.1 * g
    X, Y = _digits(300, rng)
    assert err.eval({x: X, y: Y}).mean() < 0.3
