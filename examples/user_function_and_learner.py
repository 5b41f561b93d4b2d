"""Extending CNTK from Python: a UserFunction (an op with a numpy forward and backward, saved and loaded with
the model) and a UserLearner (a parameter update rule written in numpy), training a small classifier.

    python examples/user_function_and_learner.py [--quick] [--out DIR]
"""
import argparse
import os

import numpy as np

import cntk as C
from cntk.layers import Dense, Sequential
from cntk.learners import UserLearner
from cntk.ops.functions import UserFunction


class Swish(UserFunction):
    """swish(x) = x * sigmoid(x), computed in numpy. forward returns (state kept for backward, output)."""

    def __init__(self, arg, name="Swish"):
        super(Swish, self).__init__([arg], name=name)

    def forward(self, argument, device=None, outputs_to_retain=None):
        sigmoid = 1.0 / (1.0 + np.exp(-argument))
        return (argument, sigmoid), argument * sigmoid

    def backward(self, state, root_gradients):
        x, sigmoid = state
        return root_gradients * (sigmoid + x * sigmoid * (1.0 - sigmoid))

    def infer_outputs(self):
        return [C.output_variable(self.inputs[0].shape, self.inputs[0].dtype, self.inputs[0].dynamic_axes)]

    def serialize(self):
        return {}

    @staticmethod
    def deserialize(inputs, name, state):
        return Swish(inputs[0], name)


class SgdWithDecay(UserLearner):
    """w <- w - lr * (g / n + decay * w): n is the minibatch's sample count (CNTK hands over summed gradients)."""

    def __init__(self, parameters, lr, decay):
        super(SgdWithDecay, self).__init__(parameters, C.learning_parameter_schedule(lr))
        self.lr, self.decay = lr, decay

    def update(self, gradient_values, training_sample_count, sweep_end):
        for parameter, gradient in gradient_values.items():
            gradient = gradient.asarray() if hasattr(gradient, "asarray") else np.asarray(gradient)
            parameter.value = parameter.value - self.lr * (gradient / training_sample_count
                                                           + self.decay * parameter.value)
        return True


def spirals(count, rng):
    """Two interleaved spirals: a classic that a linear model cannot separate."""
    t = rng.uniform(0.5, 3 * np.pi, count)
    label = rng.randint(2, size=count)
    points = np.stack([t * np.cos(t + np.pi * label), t * np.sin(t + np.pi * label)], 1) / 5
    return (points + 0.05 * rng.randn(count, 2)).astype(np.float32), np.eye(2, dtype=np.float32)[label]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=os.path.join("example_output", "user_function_and_learner"))
    args = parser.parse_args()
    C.cntk_py.set_fixed_random_seed(1)
    rng = np.random.RandomState(0)

    x, y = C.input_variable(2), C.input_variable(2)
    swish = lambda h: C.user_function(Swish(h))  # noqa: E731  (a UserFunction enters a graph this way)
    z = Sequential([Dense(32), swish, Dense(32), swish, Dense(2)])(x)
    loss, error = C.cross_entropy_with_softmax(z, y), C.classification_error(z, y)
    learner = SgdWithDecay(z.parameters, lr=0.3, decay=1e-4)
    trainer = C.Trainer(z, (loss, error), [learner],
                        [C.logging.ProgressPrinter(freq=0 if args.quick else 500, tag="Training")])
    for _ in range(150 if args.quick else 3000):
        features, labels = spirals(64, rng)
        trainer.train_minibatch({x: features, y: labels})
    test_x, test_y = spirals(1000, rng)
    print("test error: %.2f%%" % (100 * trainer.test_minibatch({x: test_x, y: test_y})))

    # The model, user functions included, saves and loads; Swish is found because this program defined it.
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "swish_mlp.model")
    z.save(path)
    loaded = C.load_model(path)
    same = np.allclose(loaded.eval({loaded.arguments[0]: test_x[:5]}), z.eval({x: test_x[:5]}), atol=1e-5)
    print("reloaded model gives the same outputs:", same)


if __name__ == "__main__":
    main()
