"""CNTK axes: static axes (an index into a Variable's shape) and dynamic axes (batch, sequence)."""
import contextlib
import threading

from .native_errors import announced

BATCH_AXIS_NAME = "defaultBatchAxis"
SEQUENCE_AXIS_NAME = "defaultDynamicAxis"
UNKNOWN_AXES_NAME = "UnknownAxes"
_ALL_STATIC = "AllStaticAxes"
_ALL_AXES = "AllAxes"
_END_STATIC = "EndStaticAxis"
_KNOWN_NAMES = set()     # every dynamic axis name made so far (new_unique_dynamic_axis avoids them)


class Axis(object):
    """An axis of a Variable: static (``Axis(i)``) or dynamic (named)."""

    def __init__(self, axis_or_name, is_ordered_dynamic=True):
        if isinstance(axis_or_name, Axis):
            self._name, self._index, self._ordered = axis_or_name._name, axis_or_name._index, axis_or_name._ordered
        elif isinstance(axis_or_name, int):
            self._name, self._index, self._ordered = None, axis_or_name, False
        elif isinstance(axis_or_name, str):
            self._name, self._index, self._ordered = axis_or_name, None, bool(is_ordered_dynamic)
            _KNOWN_NAMES.add(axis_or_name)
        else:
            raise TypeError("Axis: expected an int (static axis) or a str (dynamic axis name), got %r"
                            % (axis_or_name,))

    @property
    def name(self):
        if self._name is None:
            return "staticAxisIdx=%d" % self._index
        return self._name

    @property
    def is_static_axis(self):
        return self._index is not None or self._name in (_ALL_STATIC, _END_STATIC)

    @property
    def is_ordered(self):
        return self._ordered

    @property
    def is_dynamic_axis(self):
        return not self.is_static_axis and self._name not in (_ALL_AXES,)

    @property
    def is_sequence_axis(self):
        return is_sequence_axis(self)

    @property
    def is_batch_axis(self):
        return self._name == BATCH_AXIS_NAME

    def static_axis_index(self, checked=True):
        if checked and self._index is None:
            raise ValueError("Axis %r is not a static axis" % self.name)
        return self._index

    def _key(self):
        return (self._name, self._index)

    def __eq__(self, other):
        if isinstance(other, Axis):
            return self._key() == other._key()
        if isinstance(other, int) and self._index is not None:
            return self._index == other
        return NotImplemented

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        # as CNTK prints every axis, a static one by its name: Axis('staticAxisIdx=1')
        return "Axis(%r)" % self.name

    __str__ = __repr__

    @staticmethod
    def default_batch_axis():
        return Axis(BATCH_AXIS_NAME, is_ordered_dynamic=False)

    @staticmethod
    def default_dynamic_axis():
        return Axis(SEQUENCE_AXIS_NAME)

    @staticmethod
    def operand_sequence_axis():
        return Axis("__operandSequenceAxis")

    @staticmethod
    def default_input_variable_dynamic_axes():
        return (Axis.default_batch_axis(), Axis.default_dynamic_axis())

    @staticmethod
    def unknown_dynamic_axes():
        return (Axis(UNKNOWN_AXES_NAME),)

    @staticmethod
    def all_static_axes():
        return Axis(_ALL_STATIC)

    @staticmethod
    def all_axes():
        return Axis(_ALL_AXES)

    @staticmethod
    def end_static_axis():
        return Axis(_END_STATIC)

    @staticmethod
    def new_leading_axis():
        return Axis(-1 << 30)

    @staticmethod
    def new_unique_dynamic_axis(name):
        """A dynamic axis named ``name``, or, when an axis of that name was made before, ``name`` followed by
        the smallest number that makes it new (as CNTK: 'a', then 'a1', 'a2', ...)."""
        unique, k = name, 0
        while unique in _KNOWN_NAMES:
            k += 1
            unique = "%s%d" % (name, k)
        return Axis(unique)


def is_sequence_axis(axis):
    return axis.is_dynamic_axis and axis.name != BATCH_AXIS_NAME


def dynamic_axes_text(axes):
    """Dynamic axes as CNTK prints them: ``[#, *]`` (the batch axis ``#`` first, ``*`` the default sequence axis)."""
    ordered = sorted(axes, key=lambda a: a.name != BATCH_AXIS_NAME)
    return "[%s]" % ", ".join("#" if a.name == BATCH_AXIS_NAME else "*" if a.name == SEQUENCE_AXIS_NAME else a.name
                              for a in ordered)


def dynamic_axes_mismatch(op_name, operand, expected):
    """CNTK 2.7's error for an op whose operand lies on dynamic axes other than those of the operands before it
    (announced on stderr, as CNTK's native library announces it)."""
    return announced(RuntimeError, "Operation '%s': Operand '%r' has dynamic axes, that do not match the dynamic axes "
                     "'%s' of the other operands." % (op_name, operand, dynamic_axes_text(expected)))


_deferred = threading.local()


@contextlib.contextmanager
def dynamic_axes_checks_deferred(deferred=True):
    """While a graph is rebuilt piece by piece (a clone of a loop reads its back references through stand-ins still
    typed as the original), operands whose dynamic axes differ are not refused yet: the types are inferred again
    once it is complete, and the checks made then."""
    depth = getattr(_deferred, "depth", 0)
    _deferred.depth = depth + bool(deferred)
    try:
        yield
    finally:
        _deferred.depth = depth


def dynamic_axes_checks_active():
    return not getattr(_deferred, "depth", 0)

