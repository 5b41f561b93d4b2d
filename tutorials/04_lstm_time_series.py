"""Tutorial 4: forecasting a time series with an LSTM.

Given the last N values of a noisy signal, predict the value M steps ahead. The signal is a sum of two sine
waves (a daily and a faster cycle, say) plus noise; we cut it into overlapping windows, feed each window as a
sequence to an LSTM, and map the LSTM's last output to one number.

New here: sequences. A sequence input (C.sequence.input_variable) has a second, dynamic axis besides the
batch; each sample may have its own length. Recurrence(LSTM(h)) runs the cell along it; sequence.last picks
the final step. The loss is squared error, the learner fsadagrad, and we feed numpy arrays shaped
(batch, steps, 1) directly, with no reader.

Run it:   python tutorials/04_lstm_time_series.py [--quick] [--out DIR]
"""
import argparse
import os

import numpy as np

import cntk as C
from cntk.layers import Dense, Dropout, Recurrence, LSTM, Sequential
from cntk.logging import ProgressPrinter

import plotting

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--quick", action="store_true", help="a short run (for tests)")
parser.add_argument("--out", default=os.path.join("tutorial_output", "04_lstm_time_series"))
args = parser.parse_args()
C.cntk_py.set_fixed_random_seed(1)
np.random.seed(0)

# --- 1. Data -----------------------------------------------------------------------------------------------
N, M = 8, 2                      # look at 8 values, predict the one 2 steps after the window
points = 1200 if args.quick else 6000
t = np.arange(points)
signal = np.sin(t * 2 * np.pi / 50) + 0.4 * np.sin(t * 2 * np.pi / 11) + 0.1 * np.random.randn(points)
signal = signal.astype(np.float32)


def windows(series):
    """Inputs (count, N, 1) and targets (count, 1): each window and the value M steps after it."""
    count = len(series) - N - M + 1
    x = np.stack([series[i:i + N] for i in range(count)])[:, :, None]
    y = np.array([series[i + N + M - 1] for i in range(count)])[:, None]
    return x, y


split = int(points * 0.8)
train_x, train_y = windows(signal[:split])
test_x, test_y = windows(signal[split:])
print("training windows:", train_x.shape, "targets:", train_y.shape)

# --- 2. Model ----------------------------------------------------------------------------------------------
x = C.sequence.input_variable(1)          # one value per step, any number of steps
target = C.input_variable(1)              # one value per sample: not a sequence

model = Sequential([
    Recurrence(LSTM(16 if args.quick else 32)),
    C.sequence.last,
    Dropout(0.2),
    Dense(1),
])
z = model(x)
loss = C.squared_error(z, target)
print(z)

# --- 3. Training -------------------------------------------------------------------------------------------
minibatch_size = 50
epochs = 3 if args.quick else 30
learner = C.fsadagrad(z.parameters, lr=C.learning_parameter_schedule_per_sample(0.005),
                      momentum=C.momentum_schedule(0.9))
printer = ProgressPrinter(freq=0 if args.quick else 500, tag="Training", num_epochs=epochs)
trainer = C.Trainer(z, (loss, loss), [learner], [printer])   # the metric is the loss itself here

history = []
for epoch in range(epochs):
    order = np.random.permutation(len(train_x))
    for start in range(0, len(order), minibatch_size):
        batch = order[start:start + minibatch_size]
        trainer.train_minibatch({x: train_x[batch], target: train_y[batch]})
        history.append(trainer.previous_minibatch_loss_average)
    trainer.summarize_training_progress()

# --- 4. Prediction -----------------------------------------------------------------------------------------
# Dropout is active only while training; eval runs the model in inference mode.
predicted = z.eval({x: test_x}).reshape(-1)
mse = float(np.mean((predicted - test_y[:, 0]) ** 2))
naive = float(np.mean((test_x[:, -1, 0] - test_y[:, 0]) ** 2))
print("test mean squared error: %.4f (repeating the last value: %.4f)" % (mse, naive))

steps = np.arange(len(test_y))
plotting.line_chart(os.path.join(args.out, "forecast.png"),
                    {"true": (steps, test_y[:, 0]), "LSTM forecast": (steps, predicted)},
                    title="Forecast %d steps ahead on held-out data" % M, x_label="time step", y_label="value")
plotting.line_chart(os.path.join(args.out, "loss.png"), {"minibatch loss": (range(len(history)), history)},
                    title="LSTM: training loss", x_label="minibatch", y_label="squared error")
