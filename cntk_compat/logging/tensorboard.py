"""TensorBoardProgressWriter: training statistics as TensorBoard event files (torch.utils.tensorboard)."""
import sys

import numpy as np

from .progress_writer import ProgressWriter, average

__all__ = ["TensorBoardProgressWriter"]


def _histogram_tag(parameter):
    return "parameters/" + ("%s_%s" % (parameter.name, parameter.uid) if parameter.name else parameter.uid)


class TensorBoardProgressWriter(ProgressWriter):
    """Writes loss and metric to TensorBoard event files, for the scalars

    * ``minibatch/avg_loss``, ``minibatch/avg_metric`` every ``freq`` training minibatches (step: the number of
      training minibatches so far),
    * ``summary/avg_loss``, ``summary/avg_metric`` at each training summary (step: the epoch number),
    * ``minibatch/test_avg_metric`` (step: training minibatches) or, before any training,
      ``summary/test_avg_metric`` (step: the evaluation number) at each test summary,

    and, when ``model`` is given, histograms ``parameters/<name>_<uid>`` of the model's parameters at each
    training summary.

    Args:
        freq (int or None): write every ``freq`` training minibatches (None: only summaries).
        log_dir (str): directory of the event file.
        rank (int or None): the worker rank in distributed training; only rank 0 (or None) writes.
        model (Function or None): model whose parameters are recorded.
    """

    def __init__(self, freq=None, log_dir='.', rank=None, model=None):
        if freq is None:
            freq = sys.maxsize
        super(TensorBoardProgressWriter, self).__init__(freq, 0, sys.maxsize, 0, sys.maxsize, 0)
        self.writer = None
        if not rank:
            from torch.utils.tensorboard import SummaryWriter
            self.writer = SummaryWriter(log_dir=log_dir)
        self.model = model
        self.closed = False

    def _check_open(self):
        if self.closed:
            raise RuntimeError('Attempting to use a closed TensorBoardProgressWriter')

    def write_value(self, name, value, step):
        """Records the scalar ``value`` of ``name`` at time ``step``."""
        self._check_open()
        if self.writer is not None:
            self.writer.add_scalar(str(name), float(value), int(step))

    def write_image(self, name, data, step):
        """Records images: ``data`` maps a variable to a batch of shape (N, channels, height, width), with float
        values in [0, 1] or uint8 values in [0, 255]."""
        self._check_open()
        if self.writer is not None:
            for batch in data.values():
                images = np.asarray(batch.asarray() if hasattr(batch, "asarray") else batch)
                if images.ndim == 3:
                    images = images[:, None]
                self.writer.add_images(str(name), images, int(step), dataformats="NCHW")

    def flush(self):
        """Writes any pending records to disk."""
        self._check_open()
        if self.writer is not None:
            self.writer.flush()

    def close(self):
        """Flushes and closes the event file; any later use raises RuntimeError."""
        self._check_open()
        if self.writer is not None:
            self.writer.close()
        self.closed = True

    def on_write_training_update(self, samples, updates, aggregate_loss, aggregate_metric):
        step = self.total_training_updates()
        if aggregate_loss is not None:
            self.write_value('minibatch/avg_loss', average(aggregate_loss, samples), step)
        if aggregate_metric is not None:
            self.write_value('minibatch/avg_metric', average(aggregate_metric, samples), step)

    def on_write_test_update(self, samples, updates, aggregate_metric):
        raise NotImplementedError(
            'TensorBoardProgressWriter does not support recording per-minibatch cross-validation results')

    def on_write_training_summary(self, samples, updates, summaries, aggregate_loss, aggregate_metric,
                                  elapsed_milliseconds):
        if aggregate_loss is not None:
            self.write_value('summary/avg_loss', average(aggregate_loss, samples), summaries)
        if aggregate_metric is not None:
            self.write_value('summary/avg_metric', average(aggregate_metric, samples), summaries)
        if self.model is not None and self.writer is not None:
            for p in self.model.parameters:
                self.writer.add_histogram(_histogram_tag(p), p.value, summaries)

    def on_write_test_summary(self, samples, updates, summaries, aggregate_metric, elapsed_milliseconds):
        if aggregate_metric is None:
            return
        avg_metric = average(aggregate_metric, samples)
        if self.total_training_updates() != 0:
            self.write_value('minibatch/test_avg_metric', avg_metric, self.total_training_updates())
        else:
            self.write_value('summary/test_avg_metric', avg_metric, summaries)
