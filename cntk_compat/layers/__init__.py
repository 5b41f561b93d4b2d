"""cntk.layers: layer factories (each returns a block Function over a placeholder) and their options."""
from .typing import *  # noqa: F401,F403
from . import typing  # noqa: F401
from ..default_options import default_options, default_options_for, default_override_or  # noqa: F401
from .blocks import *  # noqa: F401,F403
from .higher_order_layers import *  # noqa: F401,F403
from .layers import *  # noqa: F401,F403
from . import layers  # noqa: F401
from .sequence import *  # noqa: F401,F403
from .models import *  # noqa: F401,F403
from . import models  # noqa: F401
# further names CNTK's cntk.layers re-exports from the modules it is built of
from ..core.axis import Axis  # noqa: F401,E402
from ..core.variables import Variable  # noqa: F401,E402
from ..initializer import glorot_uniform  # noqa: F401,E402
from ..ops import (alias, combine, placeholder, reconcile_dynamic_axes, sigmoid, slice, softplus,  # noqa: F401,E402
                   tanh)
# CNTK's `from .sequence import *` (its layers/sequence.py has no __all__) rebinds cntk.layers.sequence to the
# cntk.ops.sequence module that file imports; scripts that star-import cntk.layers call sequence.slice etc. on it
from ..ops import sequence  # noqa: F401,E402
