"""A training session: the standard training loop over a minibatch source with progress reporting,
checkpointing, cross validation and a final test, each at its own frequency."""
import enum
import os
import re
import sys
import warnings

import torch

from ..distributed.communicator import Communicator, all_reduce_max
from ..io import INFINITELY_REPEAT, MinibatchSource, MinibatchSourceFromData, UserMinibatchSource
from ..io.user_source import call_from_native, read_minibatch
from ..learners.schedules import MinibatchSizeSchedule, minibatch_size_schedule

__all__ = [
    "DataUnit", "CheckpointConfig", "CrossValidationConfig", "TestConfig", "TrainingSession", "training_session",
    "minibatch_size_schedule", "use_default_device"
]

_SOURCE_STATE_KEY = "TrainingMinibatchSource"
_SESSION_STATE_KEY = "TrainingSession"


class DataUnit(enum.IntEnum):
    """What a frequency counts: samples, minibatches or sweeps over the data (CNTK 2.7's values:
    cntk_py.DataUnit_Sample is 1, DataUnit_Minibatch 2, DataUnit_Sweep 0)."""
    sample = 1
    minibatch = 2
    sweep = 0


def _frequency(frequency, argument, negative_error):
    """(frequency, DataUnit) from an int (samples), a (count, DataUnit) pair or None. As in CNTK 2.7, anything else
    is a TypeError and a negative count ``negative_error`` (what its native constructor raises: the configs'
    overload resolution fails with a NotImplementedError, the session's size_t with an OverflowError)."""
    if frequency is None:
        return None, DataUnit.sample
    if isinstance(frequency, int) and not isinstance(frequency, bool):
        frequency = frequency, DataUnit.sample
    elif not (isinstance(frequency, tuple) and len(frequency) == 2 and isinstance(frequency[0], int) and
              isinstance(frequency[1], DataUnit)):
        raise TypeError("%s: unsupported frequency %r (expected an int or a (count, DataUnit) pair)"
                        % (argument, frequency))
    if frequency[0] < 0:
        raise negative_error("%s: a frequency counts samples, minibatches or sweeps and cannot be negative, got %r"
                             % (argument, frequency[0]))
    return frequency


def _schedule(minibatch_size, argument):
    if isinstance(minibatch_size, int) and not isinstance(minibatch_size, bool):
        return minibatch_size_schedule(minibatch_size)
    if not isinstance(minibatch_size, MinibatchSizeSchedule):
        raise ValueError("%s of type (%s) not supported; it must be an int or the result of "
                         "minibatch_size_schedule()" % (argument, type(minibatch_size)))
    return minibatch_size


def _deprecated(message):
    # points at the config constructor (via _current_spelling), as CNTK 2.7's warning does: inside the
    # package, so Python's default filters hide it, as they hid CNTK's
    warnings.warn("DEPRECATED: " + message, DeprecationWarning, stacklevel=3)


def is_reader(source):
    return isinstance(source, (MinibatchSource, UserMinibatchSource))


def _source_call(source, name, *args):
    """A source's method as the native training session calls it: a user source's through a director."""
    method = getattr(source, name)
    return call_from_native(method, *args) if isinstance(source, UserMinibatchSource) else method(*args)


def _rows(data):
    return data.shape[0] if hasattr(data, "shape") else len(data)


def sanitize_source(source, model_inputs_to_streams, criterion, repeat):
    """(source, {input Variable: stream}) with numpy/scipy data (a tuple in the order of the criterion's
    arguments) wrapped into a MinibatchSourceFromData: endless with ``repeat``, else one sweep."""
    if source is None or is_reader(source):
        return source, model_inputs_to_streams
    if criterion is None:
        raise ValueError("when passing data directly in place of a minibatch source, criterion must be given")
    arrays = tuple(source) if isinstance(source, (tuple, list)) else (source,)   # CNTK takes a list as a tuple
    params = list(criterion.arguments)
    if len(params) != len(arrays):
        raise ValueError("to pass data directly in place of a minibatch source, pass a tuple of %d numpy or scipy "
                         "arrays, in the order of the arguments of the criterion function; you passed %d value(s)"
                         % (len(params), len(arrays)))
    if model_inputs_to_streams is not None:
        raise ValueError("mapping must not be provided when data is passed directly")
    names = [p.name or "stream_%d" % i for i, p in enumerate(params)]
    if len(set(names)) != len(names):
        names = ["stream_%d" % i for i in range(len(params))]
    types = [{"shape": p.shape, "is_sparse": p.is_sparse, "dynamic_axes": p.dynamic_axes} for p in params]
    max_samples = INFINITELY_REPEAT if repeat else _rows(arrays[0])
    wrapped = MinibatchSourceFromData({n: (a, t) for n, a, t in zip(names, arrays, types)}, max_samples=max_samples)
    return wrapped, {p: wrapped.streams[n] for p, n in zip(params, names)}


class CheckpointConfig(object):
    """Checkpointing of a training session.

    Args:
        filename (str): checkpoint file name (None: no checkpointing).
        frequency (int or (int, DataUnit)): samples (or minibatches / sweeps) between checkpoints; None or
         ``sys.maxsize``: one checkpoint at the end of training.
        restore (bool): restore from an existing checkpoint before training.
        preserve_all (bool): keep every checkpoint, named ``filename`` + its index.
    """

    def __init__(self, filename, frequency=None, restore=True, preserve_all=False):
        frequency, unit = _frequency(frequency, "CheckpointConfig", NotImplementedError)
        if filename is None:
            if frequency:
                raise ValueError("Checkpoint frequency cannot be specified without checkpoint_filename")
            frequency, filename = 0, ""
        self.filename = filename
        self.frequency = sys.maxsize if frequency is None else frequency
        self.frequency_unit = unit
        self.restore = restore
        self.preserve_all = preserve_all


def _current_spelling(minibatch_source, minibatch_size, source, mb_size):
    """minibatch_source and minibatch_size, taken from their deprecated spellings source and mb_size when given."""
    if source is not None:
        _deprecated('"source" parameter is deprecated, please use "minibatch_source" instead')
        minibatch_source = source
    if mb_size is not None:
        _deprecated('"mb_size" parameter is deprecated, please use "minibatch_size" instead')
        minibatch_size = mb_size
    return minibatch_source, minibatch_size


class CrossValidationConfig(object):
    """Cross validation during a training session.

    Args:
        minibatch_source: reader or tuple of numpy/scipy arrays for cross validation.
        frequency (int or (int, DataUnit)): how often; None or ``sys.maxsize``: once at the end of training.
        minibatch_size (int or minibatch_size_schedule): minibatch size for cross validation.
        callback: ``callback(index, average_error, num_samples, num_minibatches)``; returning False stops
         training. Called instead of, or after, the evaluation on ``minibatch_source``.
        max_samples (int): number of samples to validate on (None: all).
        model_inputs_to_streams (dict): input -> stream mapping (default: the training session's).
        criterion (Function): required when ``minibatch_source`` is numpy/scipy data.
        source, mb_size: deprecated spellings of ``minibatch_source`` and ``minibatch_size``.
    """

    def __init__(self, minibatch_source=None, frequency=None, minibatch_size=32, callback=None, max_samples=None,
                 model_inputs_to_streams=None, criterion=None, source=None, mb_size=None):
        self.callback = callback
        frequency, unit = _frequency(frequency, "CrossValidationConfig", NotImplementedError)
        minibatch_source, minibatch_size = _current_spelling(minibatch_source, minibatch_size, source, mb_size)
        if minibatch_source is None and callback is None:
            if frequency:
                raise ValueError("Either minibatch_source of callback should be specified.")
            frequency = 0
        self.frequency = sys.maxsize if frequency is None else frequency
        self.frequency_unit = unit
        self.minibatch_size = _schedule(minibatch_size if minibatch_size is not None else 1, "minibatch_size")
        self.max_samples = sys.maxsize if max_samples is None else max_samples
        self.minibatch_source, self.model_inputs_to_streams = sanitize_source(
            minibatch_source, model_inputs_to_streams, criterion, repeat=False)


class TestConfig(object):
    """A test over a data set at the end of a training session (arguments as for CrossValidationConfig)."""

    def __init__(self, minibatch_source=None, minibatch_size=32, model_inputs_to_streams=None, criterion=None,
                 source=None, mb_size=None):
        minibatch_source, minibatch_size = _current_spelling(minibatch_source, minibatch_size, source, mb_size)
        self.minibatch_size = _schedule(minibatch_size, "minibatch_size")
        self.minibatch_source, self.model_inputs_to_streams = sanitize_source(
            minibatch_source, model_inputs_to_streams, criterion, repeat=False)


class _Action(object):
    def __init__(self, frequency, unit, run):
        self.frequency = frequency
        self.unit = unit
        self.run = run
        self.index = 0
        self.last_count = 0


class TrainingSession(object):
    """Trains ``trainer`` on ``mb_source``; create it with :func:`training_session`."""

    def __init__(self, trainer, mb_source, mb_size, model_inputs_to_streams, max_samples, progress_frequency,
                 checkpoint_config, cv_config, test_config):
        if trainer is None:
            raise ValueError("Trainer must not be None.")
        if mb_source is None:
            raise ValueError("Training minibatch source must not be None.")
        progress_frequency, progress_unit = _frequency(progress_frequency, "progress_frequency", OverflowError)
        if max_samples is not None and max_samples < 0:   # CNTK 2.7's size_t
            raise OverflowError("max_samples cannot be negative, got %r" % (max_samples,))
        mb_source, model_inputs_to_streams = sanitize_source(mb_source, model_inputs_to_streams,
                                                             trainer.loss_function, repeat=True)
        if not model_inputs_to_streams:
            raise ValueError("Mapping between input vars and streams should not be empty.")
        self.trainer = trainer
        self._source = mb_source
        self._schedule = _schedule(mb_size, "mb_size")
        self._inputs_to_streams = dict(model_inputs_to_streams)
        self._max_samples = sys.maxsize if max_samples is None else max_samples
        for k, (config, kind) in enumerate(((checkpoint_config, "CheckpointConfig"),
                                            (cv_config, "CrossValidationConfig"), (test_config, "TestConfig"))):
            if config is None:  # training_session() passes empty configs; CNTK's native constructor needs them
                raise ValueError("invalid null reference in method 'new_TrainingSession', argument %d of type "
                                 "'CNTK::%s const &'" % (9 + k, kind))
        self._checkpoint = checkpoint_config
        self._cv = cv_config
        self._test = test_config
        self.cv_callback = self._cv.callback
        distributed = trainer._distributed      # the Trainer's distributed learner (its only learner), or None
        self._distributed = distributed is not None
        self._parallel_after = distributed.distributed_after if self._distributed else 0
        self._workers = Communicator.num_workers() if self._distributed else 1
        self._rank = Communicator.rank() if self._distributed else 0
        # the workers of a blockwise learner (BMUF) meet only at its aggregations: no other collectives between
        self._blockwise = self._distributed and not distributed.aggregates_every_minibatch
        self._minibatches = 0
        self._sweeps = 0
        self._actions = []
        if self._checkpoint.frequency:
            self._actions.append(_Action(self._checkpoint.frequency, self._checkpoint.frequency_unit,
                                         self._save_checkpoint))
        progress_frequency = sys.maxsize if progress_frequency is None else progress_frequency
        self._progress_unit = progress_unit
        if progress_frequency:
            self._actions.append(_Action(progress_frequency, progress_unit, self._report_progress))
        if self._cv.frequency:
            self._actions.append(_Action(self._cv.frequency, self._cv.frequency_unit, self._cross_validate))

    # ------------------------------------------------------------------ the loop
    def _count(self, unit):
        if unit == DataUnit.minibatch:
            return self._minibatches
        if unit == DataUnit.sweep:
            return self._sweeps
        return self.trainer.total_number_of_samples_seen

    def train(self, device=None):
        """Runs the training loop (restoring from the checkpoint first when configured)."""
        if self._max_samples == sys.maxsize:
            _require_limited(self._source, "Train")
        if self._cv.minibatch_source is not None and self._cv.max_samples == sys.maxsize:
            _require_limited(self._cv.minibatch_source, "Cross validation")
        if self._test.minibatch_source is not None:
            _require_limited(self._test.minibatch_source, "Test")
        trainer = self.trainer
        if self._checkpoint.restore and self._checkpoint.filename:
            self._restore()
        restored_samples = trainer.total_number_of_samples_seen
        early_exit = False
        while True:
            left = 0 if early_exit else self._max_samples - trainer.total_number_of_samples_seen
            if left <= 0 and not self._blockwise:
                # CNTK's final, empty minibatch (data-parallel workers agree on the count, so all train it together)
                trainer.train_minibatch({}, device=device)
                _hook_answer(self.on_minibatch_end())
                break
            # a distributed worker out of data (or past max_samples by its count) trains empty minibatches until
            # the distributed learner says that all workers are: they stop together. A blockwise learner's workers
            # know each other's samples only at its aggregations, so each stops by its own count (CNTK's rule).
            partitions, partition = self._training_partition()
            size = self._schedule[trainer.total_number_of_samples_seen]
            if self._blockwise:
                # CNTK 2.7: with block momentum every worker trains minibatches of the full size, its partition
                # of a minibatch of size * workers (data-parallel workers share one minibatch of that size);
                # near max_samples that minibatch is what is left by this worker's count
                size *= partitions
            size = min(size, left)
            args = read_minibatch(self._source, size, self._inputs_to_streams, device,
                                  partitions, partition, from_native=True) if size > 0 else {}
            if not args and not self._distributed:
                trainer.train_minibatch({}, device=device)   # CNTK trains the empty minibatch too, then calls the hook
                _hook_answer(self.on_minibatch_end())
                break
            updated = trainer.train_minibatch(args or {}, device=device)
            early_exit |= _hook_answer(self.on_minibatch_end()) is False
            self._minibatches += 1
            if self._agreed(any(getattr(d, "end_of_sweep", False) for d in (args or {}).values())):
                self._sweeps += 1
            for action in self._actions:
                count = self._count(action.unit)
                index = count // action.frequency
                if index != action.index:
                    early_exit |= action.run(action.index, device) is False
                    action.index = index
                    action.last_count = count
            if not updated:
                break
        if restored_samples != trainer.total_number_of_samples_seen:
            for action in self._actions:
                count = self._count(action.unit)
                if count % action.frequency != 0 and count != action.last_count:
                    action.run(action.index, device)
        if self._checkpoint.frequency and self._checkpoint.preserve_all and \
                not os.path.exists(self._checkpoint.filename):
            self._write_checkpoint(self._checkpoint.filename)
        self._run_test(device)

    def _training_partition(self):
        """(number of partitions, this worker's partition) of the training data: during the distributed
        learners' warm start every worker reads whole minibatches, as CNTK does."""
        if self.trainer.total_number_of_samples_seen < self._parallel_after:
            return 1, 0
        return self._workers, self._rank

    def _agreed(self, flag):
        """Whether ``flag`` holds on some worker (all workers must ask together); a blockwise learner's worker
        decides alone."""
        if self._workers == 1 or self._blockwise:
            return bool(flag)
        return bool(all_reduce_max(torch.tensor([float(bool(flag))]), "training session's decision flags")[0])

    # ------------------------------------------------------------------ actions
    def _report_progress(self, index, device):
        # CNTK 2.7: each worker summarizes where its own count passes the frequency; with the frequency in samples
        # a blockwise learner's workers then average the loss and metric (a collective, which also agrees on the
        # count of all workers' samples); counted in minibatches or sweeps each summarizes alone
        together = not self._blockwise or self._progress_unit == DataUnit.sample
        self.trainer._summarize_training_progress(average_over_workers=together)

    def _save_checkpoint(self, index, device):
        name = self._checkpoint.filename
        self._write_checkpoint(name + str(index) if self._checkpoint.preserve_all else name)
        self.on_checkpoint_end(index)

    def _write_checkpoint(self, filename):
        state = {_SESSION_STATE_KEY: {"minibatches": self._minibatches, "sweeps": self._sweeps},
                 _SOURCE_STATE_KEY: _source_call(self._source, "get_checkpoint_state")}
        self.trainer.save_checkpoint(filename, state)

    def _restore(self):
        """CNTK 2.7's rule: the checkpoint file itself if it exists, else the preserved one (file + index) with
        the highest index, whether or not this session preserves all; announced on stderr."""
        name = self._checkpoint.filename
        if not os.path.exists(name):
            name = _latest_preserved(name)
            if name is None:
                return
        sys.stderr.write("Restoring training session from the checkpoint '%s'\n" % name)
        self.restore_from_checkpoint(name)

    def restore_from_checkpoint(self, filename):
        """Restores the trainer, the training source's position and the session's counts from the checkpoint
        ``filename`` (written by this kind of session)."""
        state = self.trainer.restore_from_checkpoint(filename)
        session = state.get(_SESSION_STATE_KEY, {})
        self._minibatches = int(session.get("minibatches", 0))
        self._sweeps = int(session.get("sweeps", 0))
        if _SOURCE_STATE_KEY in state:
            _source_call(self._source, "restore_from_checkpoint", state[_SOURCE_STATE_KEY])
        # the periodic actions continue from the restored counts; without a restore they count from index 0,
        # also when the trainer had seen samples before the session (CNTK 2.7's TrainingSession)
        for action in self._actions:
            action.index = self._count(action.unit) // action.frequency
            action.last_count = self._count(action.unit)

    def _evaluate(self, source, inputs_to_streams, schedule, max_samples, device, rewind):
        """(total metric, samples, minibatches) of test_minibatch over ``source`` until it is exhausted; with
        ``rewind`` the source then returns to where it was (CNTK 2.7 rewinds the cross validation source, not the
        test source, which a second session then finds exhausted)."""
        mapping = inputs_to_streams or self._inputs_to_streams
        position = _source_call(source, "get_checkpoint_state") if rewind else None
        total, samples, minibatches = 0.0, 0, 0
        # CNTK 2.7: distributed workers evaluate together, each its partition, the totals those of all workers
        together = self._distributed and self.trainer._distributed.agree_to_evaluate()
        while samples < max_samples:
            size = min(schedule[samples], max_samples - samples)
            if together:
                # (the workers stop together, when none has data left)
                args = read_minibatch(source, size, mapping, device, self._workers, self._rank, from_native=True)
                metric, n = self.trainer._distributed_test_minibatch(args or {}, device=device)
                if not n:
                    break
                total += metric
            else:
                args = read_minibatch(source, size, mapping, device, from_native=True)
                if not args:
                    break
                n = max(d.num_samples for d in args.values())
                total += self.trainer.test_minibatch(args, device=device) * n
            samples += n
            minibatches += 1
        if rewind:
            _source_call(source, "restore_from_checkpoint", position)
        return total, samples, minibatches

    def _cross_validate(self, index, device):
        cv = self._cv
        if cv.minibatch_source is None:
            return _hook_answer(self.on_cross_validation_end(index, 0.0, 0, 0))
        total, samples, minibatches = self._evaluate(cv.minibatch_source, cv.model_inputs_to_streams,
                                                     cv.minibatch_size, cv.max_samples, device, rewind=True)
        self.trainer.summarize_test_progress()
        return _hook_answer(self.on_cross_validation_end(index, total / samples if samples else 0.0, samples,
                                                         minibatches))

    def get_minibatch_size(self):
        """The training minibatch size at the current sample count (from the session's schedule)."""
        return self._schedule[self.trainer.total_number_of_samples_seen]

    def on_minibatch_start(self):
        """A hook of CNTK's TrainingSession; CNTK 2.7 never calls a Python override of it, nor does this."""

    def on_minibatch_end(self):
        """Called after each minibatch trained (and after the final, empty one); returns False to stop
        training. Override it in a subclass."""
        return True

    def on_checkpoint_start(self, index):
        """A hook of CNTK's TrainingSession; CNTK 2.7 never calls a Python override of it, nor does this."""

    def on_checkpoint_end(self, index):
        """Called after checkpoint ``index`` was written (the end-of-training one included; not after the
        file without an index that ``preserve_all`` adds at the end). Override it in a subclass."""

    def on_cross_validation_start(self, index):
        """A hook of CNTK's TrainingSession; CNTK 2.7 never calls a Python override of it, nor does this."""

    def on_cross_validation_end(self, index, average_error, num_samples, num_minibatches):
        """Called after each cross validation; returns False to stop training (the config's callback
        decides when there is one)."""
        if self.cv_callback is not None:
            return self.cv_callback(index, average_error, num_samples, num_minibatches)
        return True

    def _run_test(self, device):
        test = self._test
        if test.minibatch_source is None:
            return
        self._evaluate(test.minibatch_source, test.model_inputs_to_streams, test.minibatch_size, sys.maxsize,
                       device, rewind=False)
        self.trainer.summarize_test_progress()


def _require_limited(source, role):
    """A loop over ``source`` needs an end: a reader without a sample or sweep limit is refused."""
    is_infinite = getattr(source, "is_infinite", None)
    if is_infinite is not None and is_infinite():
        raise ValueError("%s minibatch source must have a limited number of samples or sweeps." % role)


def _latest_preserved(filename):
    """The preserved checkpoint (``filename`` + index) with the highest index, or None."""
    directory = os.path.dirname(os.path.abspath(filename))
    if not os.path.isdir(directory):
        return None
    base = os.path.basename(filename)
    pattern = re.compile(re.escape(base) + r"(\d+)$")
    best = None
    for entry in os.listdir(directory):
        m = pattern.match(entry)
        if m and (best is None or int(m.group(1)) > best[0]):
            best = (int(m.group(1)), entry)
    return os.path.join(os.path.dirname(filename), best[1]) if best else None  # as given (CNTK prints it)


def _hook_answer(answer):
    """What a hook that answers whether to go on returned: CNTK's native session takes only a Python bool from it."""
    if type(answer) is not bool:
        raise RuntimeError("SWIG director type mismatch in output value of type 'bool'")
    return answer


def training_session(trainer, mb_source, mb_size, model_inputs_to_streams, progress_frequency=None,
                     max_samples=None, checkpoint_config=None, cv_config=None, test_config=None):
    """A :class:`TrainingSession` training ``trainer`` on ``mb_source`` (a reader, or a tuple of numpy/scipy
    arrays in the order of the loss function's arguments) with minibatches of ``mb_size`` (int or
    minibatch_size_schedule), for at most ``max_samples`` samples; ``progress_frequency`` (int or
    (int, DataUnit)) sets how often the trainer summarizes its progress."""
    return TrainingSession(trainer, mb_source, mb_size, model_inputs_to_streams, max_samples, progress_frequency,
                           checkpoint_config or CheckpointConfig(None), cv_config or CrossValidationConfig(None),
                           test_config or TestConfig(None))

from ..core.device import use_default_device  # noqa: F401,E402 (CNTK's cntk.train.training_session exposes it)
