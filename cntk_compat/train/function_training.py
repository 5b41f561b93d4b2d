"""``Function.train`` and ``Function.test``: training and evaluating a criterion Function in one call."""
import sys

from ..core.hooks import provide
from ..io._record import Record
from ..logging.progress_writer import ProgressWriter
from ..io.user_source import read_minibatch
from .training_session import (CheckpointConfig, CrossValidationConfig, TestConfig, _schedule, is_reader,
                               sanitize_source, training_session)


class _ProgressCollector(ProgressWriter):
    """Records the training updates and summaries and test summaries that the other writers see."""

    def __init__(self, frequency=None):
        super(_ProgressCollector, self).__init__(sys.maxsize if frequency is None else frequency, 0,
                                                 sys.maxsize, 0, sys.maxsize, 0)
        self.training_updates = []
        self.training_summaries = []
        self.test_summaries = []

    def on_write_training_update(self, samples, updates, aggregate_loss, aggregate_metric):
        n = samples[1] - samples[0]
        loss = (aggregate_loss[1] - aggregate_loss[0]) if aggregate_loss else 0.0
        metric = (aggregate_metric[1] - aggregate_metric[0]) if aggregate_metric else 0.0
        self.training_updates.append(Record(loss=loss / (n or 1), metric=metric / (n or 1), samples=n))

    def on_write_training_summary(self, samples, updates, summaries, aggregate_loss, aggregate_metric,
                                  elapsed_milliseconds):
        self.training_summaries.append(Record(loss=(aggregate_loss or 0.0) / (samples or 1),
                                              metric=(aggregate_metric or 0.0) / (samples or 1), samples=samples))

    def on_write_test_summary(self, samples, updates, summaries, aggregate_metric, elapsed_milliseconds):
        self.test_summaries.append(Record(metric=(aggregate_metric or 0.0) / (samples or 1), samples=samples))


def _max_samples(minibatch_source, max_samples, max_epochs, epoch_size):
    if max_samples is not None:
        if max_epochs is not None:
            raise ValueError("max_epochs and max_samples are mutually exclusive.")
        return max_samples, epoch_size
    if epoch_size is None:
        if is_reader(minibatch_source):
            raise ValueError("epoch_size must be specified, unless max_samples is given or input is given as "
                             "numpy/scipy arrays.")
        first = minibatch_source[0] if isinstance(minibatch_source, (tuple, list)) else minibatch_source
        epoch_size = first.shape[0] if hasattr(first, "shape") else len(first)
    return int((1 if max_epochs is None else max_epochs) * epoch_size), epoch_size


def _sort_callbacks(callbacks):
    writers, configs = [], {CheckpointConfig: None, CrossValidationConfig: None, TestConfig: None}
    for cb in callbacks or ():
        if isinstance(cb, ProgressWriter):
            writers.append(cb)
            continue
        kind = next((k for k in configs if isinstance(cb, k)), None)
        if kind is None:
            raise ValueError("callbacks can only contain ProgressWriter, CheckpointConfig, CrossValidationConfig "
                             "and TestConfig objects, got %r" % (cb,))
        if configs[kind] is not None:
            raise ValueError("only one callback of type %s is permitted" % kind.__name__)
        configs[kind] = cb
    return writers, configs[CheckpointConfig], configs[CrossValidationConfig], configs[TestConfig]


def _input_map(criterion, streams, model_inputs_to_streams):
    if not streams:
        return model_inputs_to_streams
    if model_inputs_to_streams:
        raise ValueError("streams and model_inputs_to_streams are mutually exclusive.")
    return criterion.argument_map(*streams)


def train(criterion, minibatch_source, minibatch_size=32, streams=None, model_inputs_to_streams=None,
          parameter_learners=[], callbacks=[], progress_frequency=None, max_epochs=None, epoch_size=None,
          max_samples=None):
    """See :meth:`cntk.ops.functions.Function.train`."""
    from .trainer import Trainer
    if minibatch_size is None:
        raise ValueError("minibatch_size must not be None.")
    schedule = _schedule(minibatch_size, "minibatch_size")
    max_samples, epoch_size = _max_samples(minibatch_source, max_samples, max_epochs, epoch_size)
    writers, checkpoint_config, cv_config, test_config = _sort_callbacks(callbacks)
    if progress_frequency is None and epoch_size is not None:
        progress_frequency = epoch_size
    frequency = getattr(writers[0], "freq", None) if writers else None
    if frequency is None and progress_frequency:
        frequency = progress_frequency // schedule[0]
    collector = _ProgressCollector(frequency)
    trainer = Trainer(None, criterion, parameter_learners, progress_writers=writers + [collector])
    session = training_session(trainer, minibatch_source, schedule,
                               _input_map(criterion, streams, model_inputs_to_streams),
                               progress_frequency=progress_frequency, max_samples=max_samples,
                               checkpoint_config=checkpoint_config, cv_config=cv_config, test_config=test_config)
    session.train()
    if collector.training_summaries:
        result = Record(updates=collector.training_updates, epoch_summaries=collector.training_summaries)
    else:
        empty = Record(loss=0, metric=0, samples=0)
        result = Record(updates=[empty], epoch_summaries=[empty])
    if test_config is not None and collector.test_summaries:
        result["test_summary"] = collector.test_summaries[-1]
    return result


def test(criterion, minibatch_source, minibatch_size=32, streams=None, model_inputs_to_streams=None,
         callbacks=None):
    """See :meth:`cntk.ops.functions.Function.test`."""
    from ..eval.evaluator import Evaluator
    if minibatch_size is None:
        raise ValueError("minibatch_size must not be None.")
    schedule = _schedule(minibatch_size, "minibatch_size")
    source, mapping = sanitize_source(minibatch_source, _input_map(criterion, streams, model_inputs_to_streams),
                                      criterion, repeat=False)
    writers = list(callbacks or [])
    for cb in writers:
        if not isinstance(cb, ProgressWriter):
            raise ValueError("callbacks must only contain ProgressWriter objects, got %r" % (cb,))
    collector = _ProgressCollector()
    outputs = criterion.outputs
    evaluator = Evaluator(outputs[0] if len(outputs) == 1 else outputs[1], writers + [collector])
    if source.is_infinite():
        raise ValueError("minibatch_source must have a limited number of samples or sweeps.")
    samples = 0
    while True:
        args = read_minibatch(source, schedule[samples], mapping)
        if not args:
            break
        samples += max(d.num_samples for d in args.values())
        evaluator.test_minibatch(args)
    evaluator.summarize_test_progress()
    return collector.test_summaries[-1]


provide(train=train, test=test)  # Function.train, Function.test
