"""Logging (``cntk.logging``): progress writers, graph search helpers and the trace level."""
from .graph import depth_first_search, find_all_with_name, find_by_name, find_by_uid, get_node_outputs, plot
from .parameters import log_number_of_parameters
from .progress_print import ProgressPrinter
from .progress_writer import ProgressWriter
from .summary_callback import TrainingSummaryProgressCallback
from .tensorboard import TensorBoardProgressWriter
from .trace import TraceLevel, get_trace_level, set_trace_level

# names CNTK's cntk.logging also exposes
from ..core.device import cpu  # noqa: F401,E402
from ..core.variables import Variable  # noqa: F401,E402

__all__ = [
    "ProgressPrinter", "TensorBoardProgressWriter", "TrainingSummaryProgressCallback", "log_number_of_parameters",
    "depth_first_search", "find_all_with_name", "find_by_name", "find_by_uid", "get_node_outputs", "plot",
    "TraceLevel", "set_trace_level", "get_trace_level", "Variable", "cpu", "graph", "progress_print"
]
