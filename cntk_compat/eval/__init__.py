"""Model evaluation (``cntk.eval``)."""
from .evaluator import Evaluator

__all__ = ["Evaluator"]
