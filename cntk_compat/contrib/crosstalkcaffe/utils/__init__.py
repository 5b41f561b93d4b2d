"""Helpers of the Caffe converter: name formatting, JSON reading and the global configuration."""
from . import format, globalconf  # noqa: F401  (CNTK's tests reach utils.format.<name>)
