"""A progress writer that calls a Python function after every training epoch."""
import sys

from .progress_writer import ProgressWriter

__all__ = ["TrainingSummaryProgressCallback"]


class TrainingSummaryProgressCallback(ProgressWriter):
    """Calls ``callback(epoch_index, epoch_loss, epoch_metric, epoch_samples)`` at each training summary
    (``epoch_index`` counts from 0; loss and metric are totals over the epoch's samples).

    Args:
        epoch_size (int): the test-update frequency this writer reports with.
        callback (function): the function to call.
    """

    def __init__(self, epoch_size, callback):
        if not callable(callback):
            raise TypeError("callback must be callable, got %r" % (callback,))
        self._epoch_size = epoch_size
        self._callback = callback
        super(TrainingSummaryProgressCallback, self).__init__(sys.maxsize, 0, epoch_size, 0, sys.maxsize, 0)

    def on_write_training_summary(self, samples, updates, summaries, aggregate_loss, aggregate_metric,
                                  elapsed_milliseconds):
        self._callback(summaries - 1, aggregate_loss, aggregate_metric, samples)
