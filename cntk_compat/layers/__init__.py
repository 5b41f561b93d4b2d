"""cntk.layers"""
from .typing import *  # noqa: F401,F403
from . import typing  # noqa: F401
