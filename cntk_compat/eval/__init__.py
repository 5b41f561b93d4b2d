"""Model evaluation (``cntk.eval``)."""
from .evaluator import Evaluator

# names CNTK's cntk.eval also exposes
from ..core.device import use_default_device  # noqa: F401,E402
from ..io.minibatch_data import MinibatchData  # noqa: F401,E402

__all__ = [
    "Evaluator", "MinibatchData", "evaluator", "use_default_device"
]
