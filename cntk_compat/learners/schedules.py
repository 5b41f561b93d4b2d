"""Hyper-parameter schedules: piecewise-constant values indexed by the number of samples (or sweeps) seen.

A schedule is built from a number (one value forever) or a list whose entries are numbers or
``(count, value)`` pairs; an entry lasts ``count * epoch_size`` samples (``count`` is 1 for a bare number),
and the last value stays in force once the list is used up. With ``epoch_size=None`` the unit is a full sweep
over the data (as reported by the reader), and a schedule is indexed by the number of sweeps.

``minibatch_size`` is the reference minibatch size the values were tuned for: learners rescale them to the
actual minibatch size (:data:`IGNORE`, i.e. 0, means "apply as given to each minibatch").
"""
import numbers
import warnings
from bisect import bisect_right
from enum import Enum, unique

import numpy as np

from ..core.native_errors import RuntimeValueError

__all__ = ["UnitType", "IGNORE", "TrainingParameterSchedule", "MinibatchSizeSchedule",
           "training_parameter_schedule", "learning_parameter_schedule",
           "learning_parameter_schedule_per_sample", "learning_rate_schedule", "momentum_schedule",
           "momentum_schedule_per_sample", "momentum_as_time_constant_schedule", "minibatch_size_schedule"]

IGNORE = 0
"""The reference minibatch size that tells a learner not to rescale a hyper-parameter."""

FULL_DATA_SWEEP = 0
"""The ``epoch_size`` of a schedule whose unit is one full sweep over the data."""


@unique
class UnitType(Enum):
    """Deprecated since CNTK 2.2: whether schedule values are per sample or per minibatch."""

    sample = "sample"
    minibatch = "minibatch"


def _is_number(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


class ScheduleArgumentError(NotImplementedError, ValueError):
    """A schedule's epoch_size, minibatch_size or pair count that is not a non-negative integer: CNTK 2.7's
    NotImplementedError (no overload of its native schedule constructor takes it); a ValueError too, as it was."""


def _check_count(value, argument, error=ValueError):
    if type(value) is int and value >= 0:  # the common case, without the slower numbers.Integral check
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise error("%s must be a non-negative integer, got %r" % (argument, value))
    return int(value)


class EmptyScheduleError(RuntimeValueError):
    """An empty schedule list (CNTK 2.7's RuntimeError)."""


def _check_value(value, argument):
    if not _is_number(value):
        raise ValueError("%s: schedule values must be numbers, got %r" % (argument, value))
    value = float(value)
    if not value >= 0 or value == float("inf"):
        raise ValueError("%s: schedule values must be finite and non-negative, got %r" % (argument, value))
    return value


def _phases(schedule, argument):
    """A list of numbers and (count, value) pairs -> list of (count, value)."""
    if not schedule:
        raise EmptyScheduleError("%s: TrainingParameterSchedule::ConstructSchedule : schedule is empty (a schedule "
                                 "list must not be empty)." % argument)
    phases = []
    for entry in schedule:
        if _is_number(entry):
            phases.append((1, _check_value(entry, argument)))
        elif isinstance(entry, (tuple, list)) and len(entry) == 2:
            phases.append((_check_count(entry[0], "%s: the count of a (count, value) pair" % argument,
                                        ScheduleArgumentError),
                           _check_value(entry[1], argument)))
        else:
            raise ValueError("%s: schedule list entries must be numbers or (count, value) pairs, got %r"
                             % (argument, entry))
    return phases


class TrainingParameterSchedule(object):
    """A piecewise-constant hyper-parameter schedule.

    ``schedule[count]`` (or ``schedule(count)``) is the value in force after ``count`` samples, or after
    ``count`` sweeps when the schedule is sweep based (``epoch_size`` 0).
    """

    full_data_sweep = FULL_DATA_SWEEP
    ignored_minibatch_size = IGNORE

    def __init__(self, schedule, epoch_size=FULL_DATA_SWEEP, minibatch_size=IGNORE, argument="schedule"):
        self.epoch_size = _check_count(epoch_size, "epoch_size", ScheduleArgumentError)
        self.minibatch_size = minibatch_size
        self.is_minibatch_size_explicitly_specified = True
        if _is_number(schedule):
            phases = [(1, _check_value(schedule, argument))]
        elif isinstance(schedule, list):
            phases = _phases(schedule, argument)
        else:
            raise ValueError("%s must be either a float or a list, not %s" % (argument, type(schedule)))
        unit = self.epoch_size if self.epoch_size != FULL_DATA_SWEEP else 1
        self._values = [self._cast(v) for _, v in phases]
        self._ends = []
        end = 0
        for count, _ in phases:
            end += count * unit
            self._ends.append(end)

    @staticmethod
    def _cast(value):
        return value

    @property
    def minibatch_size(self):
        return self._minibatch_size

    @minibatch_size.setter
    def minibatch_size(self, value):
        self._minibatch_size = _check_count(value, "minibatch_size")

    def is_sweep_based(self):
        """True when the schedule unit is a full data sweep (indexed by sweep count, not sample count)."""
        return self.epoch_size == FULL_DATA_SWEEP

    def __getitem__(self, count):
        count = _check_count(count, "count")
        i = bisect_right(self._ends, count)
        return self._values[min(i, len(self._values) - 1)]

    __call__ = __getitem__

    def transform(self, func):
        """A copy of this schedule with ``func`` applied to every value."""
        other = self._copy()
        other._values = [other._cast(func(v)) for v in self._values]
        return other

    def _copy(self):
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._values = list(self._values)
        other._ends = list(self._ends)
        return other

    def current_version(self):
        """The version of CNTK 2.7's serialized schedules (2), as its ``current_version``."""
        return 2

    def serialize(self):
        """A plain dictionary describing this schedule (see :meth:`deserialize`)."""
        return {"values": list(self._values), "ends": list(self._ends), "epoch_size": self.epoch_size,
                "minibatch_size": self.minibatch_size,
                "is_minibatch_size_explicitly_specified": self.is_minibatch_size_explicitly_specified}

    @classmethod
    def deserialize(cls, dictionary):
        other = object.__new__(cls)
        other._values = [cls._cast(v) for v in dictionary["values"]]
        other._ends = [int(e) for e in dictionary["ends"]]
        other.epoch_size = int(dictionary["epoch_size"])
        other.minibatch_size = int(dictionary["minibatch_size"])
        other.is_minibatch_size_explicitly_specified = bool(dictionary["is_minibatch_size_explicitly_specified"])
        return other

    def __eq__(self, other):
        return type(other) is type(self) and self.serialize() == other.serialize()

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def __repr__(self):
        phases = ", ".join("%g until %d" % (v, e) for v, e in zip(self._values[:-1], self._ends[:-1]))
        phases = (phases + ", then " if phases else "") + "%g" % self._values[-1]
        unit = "sweeps" if self.is_sweep_based() else "samples"
        return "%s(%s [%s], minibatch_size=%d)" % (type(self).__name__, phases, unit, self.minibatch_size)


class MinibatchSizeSchedule(TrainingParameterSchedule):
    """A schedule of minibatch sizes (integer values)."""

    @staticmethod
    def _cast(value):
        if value != int(value):
            raise ValueError("minibatch sizes must be integers, got %r" % value)
        return int(value)


def _unit_reference_size(unit):
    try:
        UnitType(unit)
    except ValueError:
        raise ValueError("unit must be UnitType.sample or UnitType.minibatch ('sample' or 'minibatch'), "
                         "got %r" % (unit,)) from None
    # as CNTK 2.7, which compares the argument with the enum member: the string 'sample' passes the check above
    # and makes a per-minibatch schedule
    return 1 if unit is UnitType.sample else IGNORE


def _epoch_size(epoch_size):
    return FULL_DATA_SWEEP if epoch_size is None else epoch_size


def training_parameter_schedule(schedule, unit=UnitType.minibatch, epoch_size=None):
    """Deprecated since CNTK 2.2: a schedule of per-sample (``unit=UnitType.sample``) or per-minibatch values.

    ``schedule``: a number, or a list of numbers / ``(count, value)`` pairs, each lasting ``count * epoch_size``
    samples. ``epoch_size=None`` makes the unit a full data sweep.
    """
    reference = _unit_reference_size(unit)
    if isinstance(schedule, TrainingParameterSchedule):
        schedule.is_minibatch_size_explicitly_specified = True
        return schedule
    if _is_number(schedule):
        if epoch_size is not None:     # attributed here (CNTK: once per function and process)
            warnings.warn('When providing the schedule as a number, epoch_size is ignored', RuntimeWarning)
        result = TrainingParameterSchedule(schedule, FULL_DATA_SWEEP, reference)
    else:
        result = TrainingParameterSchedule(schedule, _epoch_size(epoch_size), reference)
    return result


def learning_parameter_schedule(schedule, minibatch_size=None, epoch_size=None):
    """A learning-parameter schedule whose values were tuned for minibatches of ``minibatch_size`` samples.

    Learners rescale the values to the actual minibatch size. ``minibatch_size=None`` leaves the reference
    size to the learner (or :data:`IGNORE`: the values apply to whole minibatches as given).
    """
    if isinstance(schedule, TrainingParameterSchedule):
        return schedule
    explicit = minibatch_size is not None
    reference = IGNORE if minibatch_size is None else _check_count(minibatch_size, "minibatch_size",
                                                                      ScheduleArgumentError)
    if _is_number(schedule):
        if epoch_size is not None:     # attributed here (CNTK: once per function and process)
            warnings.warn('When providing the schedule as a number, epoch_size is ignored', RuntimeWarning)
        result = TrainingParameterSchedule(schedule, FULL_DATA_SWEEP, reference)
    else:
        result = TrainingParameterSchedule(schedule, _epoch_size(epoch_size), reference)
    result.is_minibatch_size_explicitly_specified = explicit
    return result


def learning_parameter_schedule_per_sample(schedule, epoch_size=None):
    """A learning-parameter schedule applied as if every minibatch had one sample."""
    return learning_parameter_schedule(schedule, minibatch_size=1, epoch_size=epoch_size)


def learning_rate_schedule(lr, unit, epoch_size=None):
    """Deprecated since CNTK 2.2: same as :func:`training_parameter_schedule`."""
    return training_parameter_schedule(lr, unit, epoch_size)


def momentum_schedule(momentum, epoch_size=None, minibatch_size=None):
    """A momentum schedule; with ``minibatch_size`` the decay is rescaled to the actual minibatch size
    (``momentum ** (actual / minibatch_size)``), without it the value applies to each minibatch as given."""
    return learning_parameter_schedule(momentum, minibatch_size, epoch_size)


def momentum_schedule_per_sample(momentum, epoch_size=None):
    """A per-sample momentum schedule (reference minibatch size 1)."""
    return momentum_schedule(momentum, minibatch_size=1, epoch_size=epoch_size)


def _time_constant_to_momentum(time_constant):
    time_constant = _check_value(time_constant, "momentum (time constant)")
    if time_constant == 0:
        return 0.0
    return float(np.exp(-1.0 / time_constant))


def momentum_as_time_constant_schedule(momentum, epoch_size=None):
    """Deprecated since CNTK 2.2: momentum given as the time constant (in samples) of a unit-gain IIR filter.

    A time constant ``t`` is the per-sample momentum ``exp(-1/t)`` (reference minibatch size 1).
    """
    if isinstance(momentum, TrainingParameterSchedule):
        momentum.is_minibatch_size_explicitly_specified = True
        return momentum
    if _is_number(momentum):
        if epoch_size is not None:     # attributed here (CNTK: once per function and process)
            warnings.warn('When providing the schedule as a number, epoch_size is ignored', RuntimeWarning)
        return TrainingParameterSchedule(_time_constant_to_momentum(momentum), FULL_DATA_SWEEP, 1,
                                         argument="momentum")
    if isinstance(momentum, list):
        phases = _phases(momentum, "momentum")
        converted = [(count, _time_constant_to_momentum(value)) for count, value in phases]
        return TrainingParameterSchedule(converted, _epoch_size(epoch_size), 1, argument="momentum")
    raise ValueError("momentum must be either a float or a list, not %s" % type(momentum))


def minibatch_size_schedule(schedule, epoch_size=1):
    """A schedule of minibatch sizes: an int, or a list of ints / ``(count, size)`` pairs, each lasting
    ``count * epoch_size`` samples."""
    if isinstance(schedule, int):   # as CNTK 2.7: a Python int (a bool too), not a numpy integer
        if epoch_size != 1:
            raise ValueError("when providing the schedule as a number, epoch_size is ignored")
        return MinibatchSizeSchedule(int(schedule), 1, IGNORE, argument="schedule")
    if isinstance(schedule, list):
        # CNTK 2.7 hands the (count, size) pairs and epoch_size to SWIG as size_t: Python ints and nothing else
        pairs = [(1, v) if isinstance(v, (int, float)) else v for v in schedule]
        if not (_is_size_t(epoch_size) and all(isinstance(p, (tuple, list)) and len(p) == 2 and
                                               all(_is_size_t(v) for v in p) for p in pairs)):
            raise NotImplementedError("Wrong number or type of arguments for overloaded function "
                                      "'new_minibatch_size_schedule'. (minibatch_size_schedule(%r, epoch_size=%r): "
                                      "sizes, counts and epoch_size must be non-negative ints)"
                                      % (schedule, epoch_size))
        return MinibatchSizeSchedule([(int(c), int(v)) for c, v in pairs], int(epoch_size), IGNORE,
                                     argument="schedule")
    raise ValueError("schedule must be either an int or a list, not %s" % type(schedule))


def _is_size_t(value):
    return isinstance(value, int) and 0 <= value < 2 ** 64
