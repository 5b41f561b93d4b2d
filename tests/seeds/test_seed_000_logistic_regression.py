"""Seed 000 (CNTK 200 guided tour): the logistic-regression definitions run unchanged and print as in CNTK."""
import numpy as np
import scipy.sparse

import cntk

input_dim_lr = 2
num_classes_lr = 2


def generate_synthetic_data(N):
    Y = np.random.randint(size=N, low=0, high=num_classes_lr)
    X = (np.random.randn(N, input_dim_lr) + 3) * (Y[:, None] + 1)
    Y = scipy.sparse.csr_matrix((np.ones(N, np.float32), (range(N), Y)), shape=(N, num_classes_lr))
    X = X.astype(np.float32)
    return X, Y


def test_synthetic_data_matches_the_seed():
    np.random.seed(0)
    X_train_lr, Y_train_lr = generate_synthetic_data(20000)
    np.testing.assert_allclose(X_train_lr[:4], [[2.2741797, 3.56347561], [5.12873602, 5.79089499],
                                                [1.3574543, 5.5718112], [3.54340553, 2.46254587]], rtol=1e-6)
    np.testing.assert_array_equal(Y_train_lr[:4].todense(), [[1, 0], [0, 1], [0, 1], [1, 0]])


def test_definitions_and_printing():
    cntk.cntk_py.set_fixed_random_seed(1)
    np.random.seed(0)
    X_train_lr, Y_train_lr = generate_synthetic_data(20000)
    X_test_lr, Y_test_lr = generate_synthetic_data(1024)

    model_lr_factory = cntk.layers.Dense(num_classes_lr, activation=None)
    x = cntk.input_variable(input_dim_lr)
    y = cntk.input_variable(num_classes_lr, is_sparse=True)
    model_lr = model_lr_factory(x)

    @cntk.Function
    def criterion_lr_factory(data, label_one_hot):
        z = model_lr_factory(data)
        loss = cntk.cross_entropy_with_softmax(z, label_one_hot)
        metric = cntk.classification_error(z, label_one_hot)
        return loss, metric

    criterion_lr = criterion_lr_factory(x, y)
    assert str(criterion_lr) == "Composite(Tensor[2], SparseTensor[2]) -> Tuple[Tensor[1], Tensor[1]]"

    model_lr = model_lr_factory(x)
    assert str(model_lr) == "Dense(Tensor[2]) -> Tensor[2]"
    assert model_lr.W.shape == (2, 2) and model_lr.b.shape == (2,)

    z = model_lr(X_test_lr[:20])
    assert z.shape == (20, 2) and z.dtype == np.float32
    W, b = model_lr.W.value, model_lr.b.value
    np.testing.assert_allclose(z, X_test_lr[:20] @ W + b, rtol=1e-5, atol=1e-6)
    predicted = [z[i, :].argmax() for i in range(len(z))]
    assert all(p in (0, 1) for p in predicted)

    loss, metric = criterion_lr(X_test_lr[:20], Y_test_lr[:20])
    assert loss.shape == (20, 1) and metric.shape == (20, 1)
    logits = X_test_lr[:20] @ W + b
    labels = np.asarray(Y_test_lr[:20].todense())
    exact = logits.astype(np.float64)  # the reference in float64: float32's own log-sum-exp is off by 1e-5 here
    log_p = exact - np.log(np.exp(exact).sum(1, keepdims=True))
    np.testing.assert_allclose(loss[:, 0], -(labels * log_p).sum(1), rtol=1e-5)
    np.testing.assert_array_equal(metric[:, 0], (logits.argmax(1) != labels.argmax(1)).astype(np.float32))
