"""Debugging aids (``cntk.debugging``): the interactive graph debugger, profiler, graph dumps and the
global checking / tracing / determinism switches."""
from .debug import *  # noqa: F401,F403
from .debug import DEBUG_USAGE, debug_model, save_as_legacy_model  # noqa: F401
from .dump import dump_function, dump_signature  # noqa: F401
from .profiler import *  # noqa: F401,F403
from .settings import force_deterministic, force_deterministic_algorithms, is_checked_mode  # noqa: F401
from .tracing import get_computation_network_trace_level  # noqa: F401

# the public names: CNTK 2.7's (its incidental re-exports included) and its sub-modules; the package's
# helper modules and additions stay out of `import *`
__all__ = [
    "CloneMethod", "DEBUG_USAGE", "UserFunction", "debug", "debug_model", "disable_profiler", "dump_function",
    "dump_signature", "enable_profiler", "force_deterministic", "output_variable", "profiler",
    "save_as_legacy_model", "set_checked_mode", "set_computation_network_trace_level", "set_node_timing",
    "start_profiler", "stop_profiler", "user_function"
]
