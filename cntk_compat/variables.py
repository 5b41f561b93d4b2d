"""cntk.variables: Variable, Parameter, Constant (and the type records of layers.typing)."""
from .core.variables import Constant, Parameter, Variable, VariableKind

Record = dict
__all__ = ["Variable", "Parameter", "Constant", "Record", "VariableKind"]
