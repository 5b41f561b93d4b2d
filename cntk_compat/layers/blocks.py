"""cntk.layers.blocks: identity, Stabilizer, ForwardDeclaration and the recurrent cells (from building.py and
cells.py)."""
from ..core.function import Function  # noqa: F401 (cntk.layers.blocks re-exports, as in CNTK)
from ..core.variables import Constant, Parameter  # noqa: F401 (cntk.layers.blocks re-exports, as in CNTK)
from ..default_options import default_override_or, get_default_override  # noqa: F401
from ..initializer import glorot_uniform  # noqa: F401
from ..ops import alias, combine, placeholder, sigmoid, slice, softplus, tanh, times  # noqa: F401
from ..ops.functions import BlockFunction  # noqa: F401
from .building import Stabilizer, UntestedBranchError, identity  # noqa: F401
from .cells import GRU, LSTM, RNNStep, RNNUnit

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
