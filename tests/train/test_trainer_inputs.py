"""The Trainer with a criterion containing a UserFunction (its backward drives the update) and with
sequence inputs (padding is left out of the loss/metric sums, the sample counts and the gradients)."""
import numpy as np
import pytest

import cntk as C
from cntk.ops.functions import UserFunction


class Cube(UserFunction):
    """y = x**3 with a hand-written backward; counts its backward calls."""

    def __init__(self, arg, name="Cube"):
        super(Cube, self).__init__([arg], name=name)
        self.backward_calls = 0

    def forward(self, argument, device=None, outputs_to_retain=None):
        return argument, argument ** 3

    def backward(self, state, root_gradients):
        self.backward_calls += 1
        return root_gradients * 3 * state ** 2

    def infer_outputs(self):
        arg = self.inputs[0]
        return [C.output_variable(arg.shape, arg.dtype, arg.dynamic_axes)]


def test_user_function_backward_drives_the_update():
    x = C.input_variable(2)
    y = C.input_variable(1)
    w0 = np.array([[0.5], [-0.25]], np.float32)
    W = C.parameter((2, 1), init=w0)
    cube = Cube(C.times(x, W))
    z = C.user_function(cube)
    loss = C.squared_error(z, y)
    lr = 0.01
    trainer = C.Trainer(z, (loss, loss), [C.sgd([W], C.learning_parameter_schedule_per_sample(lr))])
    X = np.array([[1, 2], [3, -1], [0.5, 0.5]], np.float32)
    Y = np.array([[1], [0], [2]], np.float32)
    trainer.train_minibatch({x: X, y: Y})
    assert cube.backward_calls == 1
    # d/dW sum_i (u_i^3 - y_i)^2 with u = X W: sum_i 2 (u_i^3 - y_i) 3 u_i^2 x_i
    u = X @ w0
    grad = X.T @ (2 * (u ** 3 - Y) * 3 * u ** 2)
    np.testing.assert_allclose(W.value, w0 - lr * grad, rtol=1e-5)
    assert trainer.previous_minibatch_loss_average == pytest.approx(float(np.mean((u ** 3 - Y) ** 2)), rel=1e-5)


def test_sequence_padding_is_masked_out():
    x = C.sequence.input_variable(1)
    y = C.sequence.input_variable(1)
    w0 = 0.5
    W = C.parameter((1,), init=w0)
    z = x * W
    loss = C.squared_error(z, y)
    metric = C.abs(z - y)
    lr = 0.1
    trainer = C.Trainer(z, (loss, metric), [C.sgd([W], C.learning_parameter_schedule_per_sample(lr))])
    xs = [np.array([[1], [2], [3]], np.float32), np.array([[4]], np.float32)]
    ys = [np.array([[1], [1], [1]], np.float32), np.array([[3]], np.float32)]
    trainer.train_minibatch({x: xs, y: ys})
    X, Y = np.array([1, 2, 3, 4], np.float64), np.array([1, 1, 1, 3], np.float64)
    assert trainer.previous_minibatch_sample_count == 4
    assert trainer.total_number_of_samples_seen == 4
    assert trainer.previous_minibatch_loss_average == pytest.approx(np.mean((w0 * X - Y) ** 2), rel=1e-6)
    assert trainer.previous_minibatch_evaluation_average == pytest.approx(np.mean(np.abs(w0 * X - Y)), rel=1e-6)
    grad = np.sum(2 * (w0 * X - Y) * X)
    np.testing.assert_allclose(W.value, [w0 - lr * grad], rtol=1e-6)
    assert trainer.test_minibatch({x: xs, y: ys}) == pytest.approx(
        np.mean(np.abs((w0 - lr * grad) * X - Y)), rel=1e-5)
