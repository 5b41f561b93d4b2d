"""cntk.layers: layer factories (each returns a block Function over a placeholder) and their options."""
from .typing import *  # noqa: F401,F403
from . import typing  # noqa: F401
from ..default_options import default_options, default_options_for, default_override_or  # noqa: F401
from .blocks import *  # noqa: F401,F403
from .higher_order_layers import *  # noqa: F401,F403
from .dense import *  # noqa: F401,F403
from .convolution import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .core import *  # noqa: F401,F403
