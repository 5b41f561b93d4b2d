"""cntk.axis"""
from .core.axis import Axis

__all__ = ["Axis"]
