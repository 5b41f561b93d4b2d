"""Trains the logistic regression in a training session with checkpoints; used by test_checkpoint.py.

argv: checkpoint path, output .npy path for the final parameters, seconds to sleep per minibatch."""
import sys
import time

import numpy as np

import cntk as C
from _models import data, logistic_regression


class _Slow(C.logging.ProgressWriter):
    def __init__(self, delay):
        super(_Slow, self).__init__(1, 0, 1, 0, 1, 0)
        self.delay = delay

    def on_write_training_update(self, samples, updates, aggregate_loss, aggregate_metric):
        time.sleep(self.delay)


def main(checkpoint, out, delay):
    crit, z, x, y = logistic_regression()
    learner = C.momentum_sgd(z.parameters, C.learning_parameter_schedule(0.05), C.momentum_schedule(0.9))
    trainer = C.Trainer(z, crit, [learner], [_Slow(delay)])
    X, Y = data(640)
    C.training_session(trainer, (X, Y), 32, None, max_samples=3200,
                       checkpoint_config=C.CheckpointConfig(checkpoint, frequency=320)).train()
    np.save(out, np.concatenate([p.value.ravel() for p in z.parameters]))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]))
