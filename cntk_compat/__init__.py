"""cntk-compat: the CNTK 2.x Python API implemented on PyTorch. ``import cntk`` gives this package."""
__version__ = "2.7"
import numpy as _np  # noqa: E402

DATATYPE = _np.float32  # CNTK's default element type

from . import cntk_py, device, internal, ops, sequence, variables  # noqa: E402
from . import axis  # noqa: E402
from .core.axis import Axis  # noqa: E402
from .core.function import CloneMethod, Function  # noqa: E402
from .core import *  # noqa: E402,F401,F403
from .device import *  # noqa: E402,F401,F403
from .ops import functions  # noqa: E402,F401
from .core.variables import FreeDimension, InferredDimension  # noqa: E402
from .ops import *  # noqa: E402,F401,F403
from .ops import input  # noqa: E402,F401
from .variables import Constant, Parameter, Variable  # noqa: E402
from . import initializer, layers, losses, metrics  # noqa: E402
from .initializer import *  # noqa: E402,F401,F403
from .losses import *  # noqa: E402,F401,F403
from .metrics import *  # noqa: E402,F401,F403
# as in CNTK, cntk.default_options is the function (the module stays importable as cntk.default_options)
from .default_options import *  # noqa: E402,F401,F403
from .learners import *  # noqa: E402,F401,F403
from .train import *  # noqa: E402,F401,F403
from .eval import *  # noqa: E402,F401,F403
from . import eval, io, learners, logging, random, train  # noqa: E402
from . import debugging  # noqa: E402
from . import model_formats  # noqa: E402,F401
# "from . import misc" would give ops' misc module, which "from .ops import *" bound to that name
import importlib as _importlib  # noqa: E402
misc = _importlib.import_module(".misc", __name__)
# CNTK star-imports cntk.train, whose distributed module (and its names) thereby become cntk's
from . import distributed  # noqa: E402
from .distributed import *  # noqa: E402,F401,F403
from .io import INFINITELY_REPEAT, MinibatchData  # noqa: E402
from . import tests  # noqa: E402
# CNTK's top-level names for its native library folder (none here: cntk-compat has no native library), the
# automatic-seed value, its trainer module and the sample installer
cntk_library_path = ""
from .core.cntk_rng import SentinelValueForAutoSelectRandomSeed as auto_select  # noqa: E402
from .train import trainer  # noqa: E402
from . import sample_installer  # noqa: E402
from .sample_installer import install_samples  # noqa: E402
# numpy scalars print as under the numpy 1.x CNTK ran with (see numpy_printing.py and docs/NUMBERS.md)
from . import numpy_printing as _numpy_printing  # noqa: E402
_numpy_printing.apply_default()
