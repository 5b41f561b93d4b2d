"""Time-series regression with an LSTM: predict the next value of a noisy daily load curve from the last
day of readings and the time of day, trained with a Trainer and
evaluated with an Evaluator.

    python examples/lstm_time_series.py [--quick] [--out DIR]
"""
import argparse
import os

import numpy as np

import cntk as C
from cntk.layers import Dense, Fold, LSTM, Sequential

STEPS_PER_DAY = 24


def make_series(days, rng):
    """Hourly load: a daily cycle, a weekly trend and noise; features are (load, sin hour, cos hour)."""
    hours = np.arange(days * STEPS_PER_DAY)
    phase = 2 * np.pi * (hours % STEPS_PER_DAY) / STEPS_PER_DAY
    load = 1 + 0.5 * np.sin(phase - 1) + 0.2 * np.sin(2 * np.pi * hours / (7 * STEPS_PER_DAY))
    load = load + 0.05 * rng.randn(len(hours))
    return np.stack([load, np.sin(phase), np.cos(phase)], axis=1).astype(np.float32)


def windows(series, length):
    x = np.stack([series[i:i + length] for i in range(len(series) - length)])
    y = np.ascontiguousarray(series[length:, :1])  # a column slice is not C-contiguous (CNTK warns and copies)
    return x, y


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=os.path.join("example_output", "lstm_time_series"))
    args = parser.parse_args()
    C.cntk_py.set_fixed_random_seed(1)
    rng = np.random.RandomState(0)
    series = make_series(40 if args.quick else 400, rng)
    split = int(len(series) * 0.8)
    train_x, train_y = windows(series[:split], STEPS_PER_DAY)
    test_x, test_y = windows(series[split:], STEPS_PER_DAY)

    x = C.sequence.input_variable(3, name="readings")
    y = C.input_variable(1, name="next_load")
    model = Sequential([Fold(LSTM(16 if args.quick else 64)), Dense(1)])   # Fold: the last state only

    z = model(x)
    loss = C.squared_error(z, y)
    learner = C.adam(z.parameters, lr=C.learning_parameter_schedule_per_sample(0.002),
                     momentum=C.momentum_schedule_per_sample(0.99))
    trainer = C.Trainer(z, (loss, loss), [learner],
                        [C.logging.ProgressPrinter(freq=0 if args.quick else 100, tag="Training")])
    rng = np.random.RandomState(1)
    for epoch in range(2 if args.quick else 20):
        order = rng.permutation(len(train_x))
        for start in range(0, len(order), 32):
            batch = order[start:start + 32]
            trainer.train_minibatch({x: train_x[batch], y: train_y[batch]})   # (batch, steps, features)
        trainer.summarize_training_progress()

    # An Evaluator computes a metric without training, with its own progress writers.
    evaluator = C.eval.Evaluator(loss, [C.logging.ProgressPrinter(tag="Test")])
    for start in range(0, len(test_x), 256):
        evaluator.test_minibatch({x: test_x[start:start + 256], y: test_y[start:start + 256]})
    evaluator.summarize_test_progress()
    mse = float(np.mean((z.eval({x: test_x}) - test_y) ** 2))
    baseline = float(np.mean((test_x[:, -1, 0] - test_y[:, 0]) ** 2))
    print("test mean squared error %.4f (repeating the last reading: %.4f)" % (mse, baseline))
    os.makedirs(args.out, exist_ok=True)
    model.save(os.path.join(args.out, "forecaster.model"))


if __name__ == "__main__":
    main()
