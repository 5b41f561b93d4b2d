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


_level = {"value": TraceLevel.Warning}


def set_trace_level(value):
    """Sets the global verbosity level (a :class:`TraceLevel` or its integer value)."""
    try:
        _level["value"] = value if isinstance(value, TraceLevel) else TraceLevel(value)
    except ValueError:
        raise ValueError("value must be a TraceLevel (or 0, 1, 2), got %r" % (value,)) from None


def get_trace_level():
    """The global verbosity level."""
    return _level["value"]
