"""Miscellaneous graph utilities (``cntk.misc``): rewriting a graph by converting the Functions it holds."""
from .converter import convert  # noqa: F401
from .optimized_rnnstack_converter import convert_optimized_rnnstack  # noqa: F401

__all__ = [
    "convert", "convert_optimized_rnnstack", "converter", "optimized_rnnstack_converter"
]
