"""ProgressPrinter: prints training / evaluation progress in CNTK's format, to stdout or to a log file."""
import sys
import time
import warnings

from .progress_writer import ProgressWriter, average
from .summary_callback import TrainingSummaryProgressCallback
from .tensorboard import TensorBoardProgressWriter
from .parameters import log_number_of_parameters

__all__ = [
    "ProgressPrinter", "TensorBoardProgressWriter", "TrainingSummaryProgressCallback", "log_number_of_parameters",
    "cpu"
]

_HEARTBEAT_SECONDS = 10


def _warn_deprecated(message):
    # attributed to this module, as CNTK 2.7 attributes it (stacklevel=2 from its own helper): Python's
    # default filters then hide it, as they hid CNTK's, instead of showing it for a call in __main__
    warnings.warn("DEPRECATED: " + message, DeprecationWarning, stacklevel=2)


def _print_built_info():
    """What this build is, as CNTK prints its build information (stderr; cntk_py.print_built_info)."""
    from importlib import metadata
    import torch
    try:
        version = metadata.version("cntk-compat")
    except metadata.PackageNotFoundError:
        version = "unknown (not installed)"
    sys.stderr.write("-------------------------------------------------------------------\n"
                     "Build info: \n\n"
                     "\t\tcntk-compat version: %s\n"
                     "\t\ttorch version: %s\n"
                     "\t\tCUDA: %s\n"
                     "-------------------------------------------------------------------\n"
                     % (version, torch.__version__, torch.version.cuda or "none (CPU-only torch)"))


class ProgressPrinter(ProgressWriter):
    """Prints statistics (loss, metric) as training and evaluation progress.

    Args:
        freq (int or None): print every ``freq`` minibatches; 0 prints a table on a geometric schedule
          (1, 3, 7, 15, ... minibatches); None prints no per-minibatch lines.
        first (int): also print each of the first ``first`` minibatches.
        tag (str): prefix of the epoch summary lines.
        log_to_file (str or None): write to this file instead of stdout.
        rank (int or None): the worker rank in distributed training: each rank logs to its own file.
        gen_heartbeat (bool): print a "PROGRESS" line at most every 10 seconds.
        num_epochs (int or None): total number of epochs, shown in epoch summaries.
        test_freq, test_first: like ``freq`` and ``first`` for evaluation minibatches.
        metric_is_pct (bool): print the metric as a percentage.
        distributed_freq, distributed_first: like ``freq`` and ``first`` for distributed synchronizations.
    """

    def __init__(self, freq=None, first=0, tag='', log_to_file=None, rank=None, gen_heartbeat=False,
                 num_epochs=None, test_freq=None, test_first=0, metric_is_pct=True, distributed_freq=None,
                 distributed_first=0):
        freq = sys.maxsize if freq is None else freq
        test_freq = sys.maxsize if test_freq is None else test_freq
        distributed_freq = sys.maxsize if distributed_freq is None else distributed_freq
        super(ProgressPrinter, self).__init__(freq, first, test_freq, test_first, distributed_freq,
                                              distributed_first)
        self.loss_since_start = 0
        self.metric_since_start = 0
        self.samples_since_start = 0
        self.updates_since_start = 0
        self.loss_since_last = 0
        self.metric_since_last = 0
        self.samples_since_last = 0
        self.total_updates = 0
        self.epochs = 0
        self.freq = freq
        self.first = first
        self.test_freq = test_freq
        self.tag = "[{}] ".format(tag) if tag else ''
        self.epoch_start_time = time.time()
        self.progress_timer_time = 0
        self.log_to_file = log_to_file
        self.gen_heartbeat = gen_heartbeat
        self.num_epochs = num_epochs
        self.metric_is_pct = metric_is_pct
        self.metric_multiplier = 100.0 if metric_is_pct else 1.0

        # CNTK's ProgressPrinter prints its build information block (stderr) whenever one is made
        _print_built_info()

        self.logfilename = None
        if log_to_file is not None:
            self.logfilename = log_to_file if rank is None else "{}rank{}".format(log_to_file, rank)
            print("Redirecting log to file " + self.logfilename)
            with open(self.logfilename, "w") as logfile:
                logfile.write(self.logfilename + "\n")
            planned = num_epochs if num_epochs is not None else 300
            self.___logprint("CNTKCommandTrainInfo: train : {}".format(planned))
            self.___logprint("CNTKCommandTrainInfo: CNTKNoMoreCommands_Total : {}".format(planned))
            self.___logprint("CNTKCommandTrainBegin: train")

        if freq == 0:
            self.___logprint(" average      since    average      since      examples")
            self.___logprint("    loss       last     metric       last              ")
            self.___logprint(" ------------------------------------------------------")

    # -- output ------------------------------------------------------------------------------------------------
    def ___logprint(self, logline):
        if self.log_to_file is None:
            print(logline)
        else:
            with open(self.logfilename, "a") as logfile:
                logfile.write(logline + "\n")

    def log(self, message):
        """Writes ``message`` to the log."""
        self.___logprint(message)

    def end_progress_print(self, msg=""):
        """Marks the end of training in the log (and writes ``msg`` when logging to a file)."""
        self.___logprint("CNTKCommandTrainEnd: train")
        if msg != "" and self.log_to_file is not None:
            self.___logprint(msg)

    def write(self, key, value):
        self.___logprint("{}: {}".format(key, value))

    def ___generate_progress_heartbeat(self):
        if self.gen_heartbeat and time.time() - self.progress_timer_time > _HEARTBEAT_SECONDS:
            print("PROGRESS: 0.00%")
            self.progress_timer_time = time.time()

    # -- ProgressWriter overrides ------------------------------------------------------------------------------
    def on_write_training_update(self, samples, updates, aggregate_loss, aggregate_metric):
        self.___write_progress_update(samples, updates, aggregate_loss, aggregate_metric, self.freq, '')

    def on_training_update_end(self):
        self.___generate_progress_heartbeat()

    def on_write_test_update(self, samples, updates, aggregate_metric):
        self.___write_progress_update(samples, updates, None, aggregate_metric, self.test_freq, 'Evaluation ')

    def on_write_distributed_sync_update(self, samples, updates, aggregate_metric):
        self.___logprint("Distributed training: #Syncs elapsed = {}, #Samples elapsed = {}".format(
            updates[1] - updates[0], samples[1] - samples[0]))

    def ___write_progress_update(self, samples, updates, aggregate_loss, aggregate_metric, frequency, name):
        if frequency == 0:
            line = ' ' + self.___table_cells(aggregate_loss, samples) \
                + self.___table_cells(aggregate_metric, samples) + ' {:10d}'.format(samples[1])
        else:
            parts = []
            count = samples[1] - samples[0]
            if aggregate_loss is not None:
                parts.append('loss = {:0.6f} * {:d}'.format(average(aggregate_loss, samples), count))
            if aggregate_metric is not None:
                parts.append(self.___metric_text(average(aggregate_metric, samples), count))
            line = ' {}Minibatch[{:4d}-{:4d}]: {};'.format(name, updates[0] + 1, updates[1], ', '.join(parts))
        self.___logprint(line)

    @staticmethod
    def ___table_cells(aggregate, samples):
        """'average since-start   average since-last   ' columns of the geometric table."""
        if aggregate is None:
            return '{:8s}   {:8s}   '.format('', '')
        return '{:8.3g}   {:8.3g}   '.format(average(aggregate[1], samples[1]), average(aggregate, samples))

    def ___metric_text(self, mean, count):
        if self.metric_is_pct:
            return 'metric = {:0.2f}% * {:d}'.format(mean * self.metric_multiplier, count)
        return 'metric = {:0.6f} * {:d}'.format(mean * self.metric_multiplier, count)

    def on_write_training_summary(self, samples, updates, summaries, aggregate_loss, aggregate_metric,
                                  elapsed_milliseconds):
        if self.freq == 0:
            return  # the geometric table has no epoch summaries
        elapsed_seconds = elapsed_milliseconds / 1000
        of_epochs = " of {}".format(self.num_epochs) if self.num_epochs is not None else ''
        text = "Finished Epoch[{}{}]: {}loss = {:0.6f} * {}".format(
            summaries, of_epochs, self.tag, average(aggregate_loss, samples), samples)
        if aggregate_metric is not None:
            text += ", " + self.___metric_text(average(aggregate_metric, samples), samples)
        text += " {:0.3f}s ({:5.1f} samples/s);".format(elapsed_seconds, average(samples, elapsed_seconds))
        self.___logprint(text)

    def on_write_test_summary(self, samples, updates, summaries, aggregate_metric, elapsed_milliseconds):
        self.___logprint("Finished Evaluation [{}]: Minibatch[1-{}]: {};".format(
            summaries, updates, self.___metric_text(average(aggregate_metric, samples), samples)))

    # -- deprecated manual driving (before progress writers were passed to the Trainer) --------------------------
    def update(self, loss, minibatch_size, metric=None):
        """DEPRECATED. Accumulates one minibatch's average ``loss`` (and ``metric``) over ``minibatch_size``
        samples and prints when due."""
        if self.total_updates == 0:
            _warn_deprecated('The method was deprecated.')
        if minibatch_size == 0:
            return
        self.samples_since_start += minibatch_size
        self.samples_since_last += minibatch_size
        self.loss_since_start += loss * minibatch_size
        self.loss_since_last += loss * minibatch_size
        self.updates_since_start += 1
        self.total_updates += 1
        if metric is not None:
            self.metric_since_start += metric * minibatch_size
            self.metric_since_last += metric * minibatch_size
        self.___generate_progress_heartbeat()

        done = self.updates_since_start
        if self.freq == 0:
            due = (done + 1) & done == 0
        else:
            due = done % self.freq == 0 or done <= self.first
        if not due:
            return
        samples = (self.samples_since_start - self.samples_since_last, self.samples_since_start)
        updates = None
        if self.freq > 0:
            start = done if done <= self.first else max(done - self.freq, self.first)
            updates = (start, done)
        aggregate_loss = (self.loss_since_start - self.loss_since_last, self.loss_since_start)
        aggregate_metric = None
        if metric is not None:
            aggregate_metric = (self.metric_since_start - self.metric_since_last, self.metric_since_start)
        self.on_write_training_update(samples, updates, aggregate_loss, aggregate_metric)
        self.reset_last()

    def update_with_trainer(self, trainer, with_metric=False):
        """DEPRECATED. :meth:`update` with the last minibatch statistics of ``trainer``."""
        if self.total_updates == 0:
            _warn_deprecated('Inefficient. Please pass an instance of ProgressPrinter to Trainer upon construction.')
        if trainer is not None and trainer.previous_minibatch_sample_count != 0:
            self.update(trainer.previous_minibatch_loss_average, trainer.previous_minibatch_sample_count,
                        trainer.previous_minibatch_evaluation_average if with_metric else None)

    def epoch_summary(self, with_metric=False):
        """DEPRECATED. Prints an epoch summary from the accumulators fed by :meth:`update`."""
        _warn_deprecated('The method was deprecated.')
        self.epochs += 1
        now = time.time()
        elapsed_milliseconds = (now - self.epoch_start_time) * 1000
        self.epoch_start_time = now
        self.on_write_training_summary(self.samples_since_start, self.updates_since_start, self.epochs,
                                       self.loss_since_start, self.metric_since_start if with_metric else None,
                                       elapsed_milliseconds)
        if self.freq > 0:
            return self.reset_start()

    def avg_loss_since_start(self):
        """DEPRECATED. Average loss since the start of accumulation."""
        _warn_deprecated('The method was deprecated.')
        return average(self.loss_since_start, self.samples_since_start)

    def avg_metric_since_start(self):
        """DEPRECATED. Average metric since the start of accumulation."""
        _warn_deprecated('The method was deprecated.')
        return average(self.metric_since_start, self.samples_since_start)

    def avg_loss_since_last(self):
        """DEPRECATED. Average loss since the last print."""
        _warn_deprecated('The method was deprecated.')
        return average(self.loss_since_last, self.samples_since_last)

    def avg_metric_since_last(self):
        """DEPRECATED. Average metric since the last print."""
        _warn_deprecated('The method was deprecated.')
        return average(self.metric_since_last, self.samples_since_last)

    def reset_start(self):
        """DEPRECATED. Resets the 'start' accumulators; returns (avg loss, avg metric, samples) since start."""
        _warn_deprecated('The method was deprecated.')
        result = self.avg_loss_since_start(), self.avg_metric_since_start(), self.samples_since_start
        self.loss_since_start = 0
        self.metric_since_start = 0
        self.samples_since_start = 0
        self.updates_since_start = 0
        return result

    def reset_last(self):
        """DEPRECATED. Resets the 'last' accumulators; returns (avg loss, avg metric, samples) since last."""
        if self.total_updates == 0:
            _warn_deprecated('The method was deprecated.')
        # (the two averages warn as deprecated too, attributed to this module, which the default filters hide;
        # a catch_warnings here would reset Python's once-per-place registry, so that each print of the progress
        # repeated the script's own warnings, such as the feeding's 'data is not C contiguous')
        result = self.avg_loss_since_last(), self.avg_metric_since_last(), self.samples_since_last
        self.loss_since_last = 0
        self.metric_since_last = 0
        self.samples_since_last = 0
        return result

from ..core.device import cpu  # noqa: F401,E402 (CNTK's cntk.logging.progress_print exposes it)
