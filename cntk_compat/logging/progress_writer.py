"""The ProgressWriter base class: decides when accumulated training / test / distributed-sync statistics are
written and hands them to the ``on_write_*`` methods that subclasses override.

The Trainer (or Evaluator) drives a writer with:

* ``update_training(num_samples, accumulated_loss, accumulated_metric)`` after every training minibatch,
* ``update_test(num_samples, accumulated_metric)`` after every test minibatch,
* ``update_distributed_sync(num_samples, accumulated_metric)`` after every distributed synchronization,
* ``write_training_summary(accumulated_loss, accumulated_metric)`` / ``write_test_summary(accumulated_metric)``
  at the end of an epoch / evaluation,

where the accumulated values are the *totals* (sums over samples) since the last summary: numbers, 0-d torch
tensors (read only when something is written), or None when there is no loss/metric.

Writes happen for update numbers ``frequency, 2*frequency, ...`` and every update up to ``first`` (arithmetic
schedule), or for updates ``1, 3, 7, 15, ...`` (``2**k - 1``) when ``frequency`` is 0 (geometric schedule).
The ``on_write_*_update`` methods get ``(start, end)`` pairs of the samples, updates and aggregates of the
window since the previous write, counted from the last summary.
"""
import numbers
import time

__all__ = ["ProgressWriter"]


def average(numerator, denominator):
    """numerator / denominator, where either may be a (start, end) pair meaning ``end - start``; 0 if empty."""
    if isinstance(numerator, tuple):
        numerator = numerator[1] - numerator[0]
    if isinstance(denominator, tuple):
        denominator = denominator[1] - denominator[0]
    return numerator / denominator if denominator > 0 else 0.0


def _as_float(value):
    return None if value is None else float(value)


class _Window(object):
    """Accumulation state of one kind of progress (training, test or distributed sync)."""

    def __init__(self, frequency, first, argument):
        # CNTK 2.7 takes them as C++ size_t: a TypeError for other than an integer (a bool is one), an
        # OverflowError for one outside [0, 2**64)
        for value, name in ((frequency, argument + "_frequency"), (first, argument + "_first")):
            if not isinstance(value, numbers.Integral):
                raise TypeError("%s must be a non-negative integer, got %r" % (name, value))
            if not 0 <= value < 2 ** 64:
                raise OverflowError("%s must be a non-negative integer below 2**64, got %r" % (name, value))
        self.frequency = int(frequency)
        self.first = int(first)
        self.total_updates = 0
        self.total_summaries = 0
        self._reset()

    def _reset(self):
        self.samples = [0, 0]
        self.updates = [0, 0]
        self.loss = None
        self.metric = None
        self.start_time = time.time()

    def _due(self, update):
        if self.frequency == 0:
            return (update + 1) & update == 0
        return update % self.frequency == 0 or update <= self.first

    @staticmethod
    def _advance(pair, value):
        value = _as_float(value)
        if value is None:
            return pair
        return [0.0, value] if pair is None else [pair[0], value]

    def update(self, samples, loss, metric):
        """Counts a minibatch; returns (samples, updates, loss, metric) pairs when they are due to be written."""
        if samples == 0:
            return None
        self.samples[1] += int(samples)
        self.updates[1] += 1
        self.total_updates += 1
        if not self._due(self.updates[1]):
            return None
        self.loss = self._advance(self.loss, loss)
        self.metric = self._advance(self.metric, metric)
        written = (tuple(self.samples), tuple(self.updates),
                   None if self.loss is None else tuple(self.loss),
                   None if self.metric is None else tuple(self.metric))
        for pair in (self.samples, self.updates, self.loss, self.metric):
            if pair is not None:
                pair[0] = pair[1]
        return written

    def summarize(self, loss, metric):
        """(samples, updates, summaries, loss, metric, elapsed_milliseconds) since the last summary; resets."""
        self.total_summaries += 1
        elapsed_milliseconds = int(round((time.time() - self.start_time) * 1000))
        summary = (self.samples[1], self.updates[1], self.total_summaries, _as_float(loss), _as_float(metric),
                   elapsed_milliseconds)
        self._reset()
        return summary


class ProgressWriter(object):
    """Base class of progress writers (ProgressPrinter, TensorBoardProgressWriter, user writers).

    Args:
        training_update_frequency, training_first_updates: when training updates are written (see module doc).
        test_update_frequency, test_first_updates: the same for test minibatches.
        distributed_sync_update_frequency, distributed_sync_first_updates: the same for distributed syncs.
    """

    def __init__(self, training_update_frequency, training_first_updates, test_update_frequency,
                 test_first_updates, distributed_sync_update_frequency, distributed_sync_first_updates):
        self.__training = _Window(training_update_frequency, training_first_updates, "training_update")
        self.__test = _Window(test_update_frequency, test_first_updates, "test_update")
        self.__sync = _Window(distributed_sync_update_frequency, distributed_sync_first_updates,
                              "distributed_sync_update")

    def __disown__(self):
        """CNTK writers hand their ownership to the C++ trainer with this call; here the writer simply stays a
        Python object, so this returns it unchanged."""
        return self

    # -- overridables ------------------------------------------------------------------------------------------
    def on_write_training_update(self, samples, updates, aggregate_loss, aggregate_metric):
        """Called when training progress is due: each argument is a (start, end) pair (None if not tracked)."""

    def on_write_test_update(self, samples, updates, aggregate_metric):
        """Called when test progress is due."""

    def on_write_distributed_sync_update(self, samples, updates, aggregate_metric):
        """Called when distributed synchronization progress is due."""

    def on_training_update_end(self):
        """Called after every training update, written or not."""

    def on_write_training_summary(self, samples, updates, summaries, aggregate_loss, aggregate_metric,
                                  elapsed_milliseconds):
        """Called at the end of a training epoch with the totals since the previous summary."""

    def on_write_test_summary(self, samples, updates, summaries, aggregate_metric, elapsed_milliseconds):
        """Called at the end of an evaluation with the totals since the previous test summary."""

    def write(self, key, value):
        """Called with a named value (e.g. a learner's learning rate when it changes)."""

    # -- counters ----------------------------------------------------------------------------------------------
    def total_training_updates(self):
        return self.__training.total_updates

    def total_test_updates(self):
        return self.__test.total_updates

    # -- driven by the Trainer / Evaluator ---------------------------------------------------------------------
    def update_training(self, num_samples, accumulated_loss, accumulated_metric):
        written = self.__training.update(num_samples, accumulated_loss, accumulated_metric)
        if written is not None:
            self.on_write_training_update(*written)
        self.on_training_update_end()

    def update_test(self, num_samples, accumulated_metric):
        written = self.__test.update(num_samples, None, accumulated_metric)
        if written is not None:
            samples, updates, _, metric = written
            self.on_write_test_update(samples, updates, metric)

    def update_distributed_sync(self, num_samples, accumulated_metric):
        written = self.__sync.update(num_samples, None, accumulated_metric)
        if written is not None:
            samples, updates, _, metric = written
            self.on_write_distributed_sync_update(samples, updates, metric)

    def write_training_summary(self, accumulated_loss, accumulated_metric):
        self.on_write_training_summary(*self.__training.summarize(accumulated_loss, accumulated_metric))

    def write_test_summary(self, accumulated_metric):
        samples, updates, summaries, _, metric, elapsed = self.__test.summarize(None, accumulated_metric)
        self.on_write_test_summary(samples, updates, summaries, metric, elapsed)
