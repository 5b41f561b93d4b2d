"""cntk.variables: Variable, Parameter, Constant, and Record (the immutable attribute dict of CNTK)."""
from .core.value import NDArrayView
from .core.device import DeviceDescriptor, use_default_device
from .core.variables import Constant, Parameter, Variable, VariableKind, VariableMixin
from .default_options import default_override_or, get_default_override
from .tensor import TensorOpsMixin


class Record(dict):
    """``Record(x=13).x == 13``; members cannot be reassigned, ``updated_with`` makes a modified copy."""

    def __init__(self, **members):
        super(Record, self).__init__(members)

    def __getattr__(self, key):
        if key not in self:
            raise AttributeError("record has no attribute %r (members: %s)" % (key, ", ".join(sorted(self))))
        return self[key]

    def __setattr__(self, key, value):
        raise AttributeError("record is immutable: cannot set %r; use updated_with(%s=...)" % (key, key))

    def updated_with(self, **changes):
        members = dict(self)
        members.update(changes)
        return Record(**members)


__all__ = [
    "Variable", "Parameter", "Constant", "Record", "VariableMixin", "DeviceDescriptor", "NDArrayView",
    "TensorOpsMixin", "default_override_or", "get_default_override", "use_default_device"
]
