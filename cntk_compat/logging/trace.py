"""The global logging verbosity level."""
from enum import Enum, unique

__all__ = ["TraceLevel", "set_trace_level", "get_trace_level"]


@unique
class TraceLevel(Enum):
    """Logging verbosity levels."""

    Error = 0
    Warning = 1
    Info = 2

    def __eq__(self, other):
        if isinstance(other, TraceLevel):
            return self.value == other.value
        return self.value == other

    def __ne__(self, other):
        return not self == other

    __hash__ = Enum.__hash__


_level = {"value": TraceLevel.Warning.value}


def set_trace_level(value):
    """Sets the global verbosity level: a :class:`TraceLevel` or an int (CNTK 2.7 takes any int; levels above
    Info log as Info does)."""
    if isinstance(value, TraceLevel):
        value = value.value
    if not isinstance(value, int):
        raise TypeError("in method 'set_trace_level', argument 1 of type 'CNTK::TraceLevel': expected a TraceLevel or "
                        "an int, got %r" % (value,))
    _level["value"] = int(value)


def get_trace_level():
    """The global verbosity level, as an int (CNTK 2.7 returns its native enum's value; it equals the
    :class:`TraceLevel` member)."""
    return _level["value"]
