"""cntk.sequence: sequence inputs and the sequence operations (the same as cntk.ops.sequence)."""
from ..ops.sequence import *  # noqa: F401,F403
from ..ops.sequence import __all__  # noqa: F401
