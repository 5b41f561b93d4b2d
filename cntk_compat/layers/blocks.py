"""cntk.layers.blocks: identity, Stabilizer, ForwardDeclaration and the recurrent cells (from building.py and
cells.py)."""
import numpy as np  # noqa: F401 (CNTK 2.7's module binds np; `from cntk.layers.blocks import *` scripts use it)

from ..core.function import Function  # noqa: F401 (cntk.layers.blocks re-exports, as in CNTK)
from ..core.variables import InferredDimension  # noqa: F401
from ..internal.sanitize import _as_tuple  # noqa: F401
from ..core.variables import Constant, Parameter  # noqa: F401 (cntk.layers.blocks re-exports, as in CNTK)
from ..default_options import default_override_or, get_default_override  # noqa: F401
from ..initializer import glorot_uniform  # noqa: F401
from ..ops import alias, combine, placeholder, sigmoid, slice, softplus, tanh, times  # noqa: F401
from ..ops.functions import BlockFunction  # noqa: F401
from .building import (Stabilizer, UntestedBranchError, _get_initial_state_or_default, _initializer_for,  # noqa: F401
                       _inject_name, identity)  # CNTK 2.7 defines these private helpers here; scripts import them
from .cells import GRU, LSTM, RNNStep, RNNUnit

# a parameter shape's leading inferred axis, imported by CNTK's own examples
# (`C.parameter(_INFERRED + (hidden_dim,))`): CNTK 2.7's value, the tuple (InferredDimension,)
_INFERRED = (InferredDimension,)

__all__ = [
    "identity", "Stabilizer", "ForwardDeclaration", "LSTM", "GRU", "RNNStep", "RNNUnit", "BlockFunction",
    "Constant", "Function", "Parameter", "UntestedBranchError", "alias", "combine", "default_override_or",
    "get_default_override", "glorot_uniform", "placeholder", "sigmoid", "slice", "softplus", "tanh", "times"
]


def ForwardDeclaration(name="forward_declaration"):
    """A placeholder with ``resolve_to(var)``, for writing recurrent loops explicitly."""
    var_fwd = placeholder(name=name)

    def resolve_to(var):
        var.owner.replace_placeholders({var_fwd: var})
    var_fwd.resolve_to = resolve_to
    return var_fwd
