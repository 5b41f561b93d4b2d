"""Debugging aids (``cntk.debugging``): the interactive graph debugger, profiler, graph dumps and the
global checking / tracing / determinism switches."""
from .debug import *  # noqa: F401,F403
from .debug import DEBUG_USAGE, debug_model, save_as_legacy_model  # noqa: F401
from .dump import dump_function, dump_signature  # noqa: F401
from .profiler import *  # noqa: F401,F403
from .settings import force_deterministic, force_deterministic_algorithms, is_checked_mode  # noqa: F401
from .tracing import get_computation_network_trace_level  # noqa: F401
