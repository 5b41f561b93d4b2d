"""The parts of CNTK's native module (cntk.cntk_py) that scripts call directly."""
import numpy as _np
import torch as _torch

from .core import cntk_rng as _rng

_state = {"deterministic": False, "force_setting_device": False}


def set_fixed_random_seed(value):
    """Every automatic seed (of random initializers and random nodes) becomes ``value``, as in CNTK; torch's
    global generator, which a few of cntk-compat's own operations draw from, is seeded with it too. numpy's
    and Python's generators are left alone: CNTK does not touch them, so a script's own data stays the same."""
    _rng.set_fixed_random_seed(value)
    _torch.manual_seed(int(value))


def reset_random_seed(value=0):
    """The automatic seeds restart at ``value`` and are no longer fixed."""
    _rng.reset_random_seed(value)


def generate_random_seed(perWorkerLocalValue=False):
    """The next automatic seed (and the counter moves on unless the seed is fixed)."""
    return _rng.generate_random_seed(perWorkerLocalValue)


def is_random_seed_fixed():
    return _rng.is_random_seed_fixed()


def force_deterministic_algorithms(enable=True):
    _state["deterministic"] = bool(enable)
    _torch.use_deterministic_algorithms(bool(enable), warn_only=True)


def should_force_deterministic_algorithms():
    return _state["deterministic"]


def always_allow_setting_default_device():
    _state["force_setting_device"] = True


def get_random_seed():
    """The value the next automatic seed takes."""
    return _rng.get_random_seed()


_READER_NAMES = ("MinibatchSourceConfig", "to_dictionary")


def __getattr__(name):
    # these live in packages that import cntk_py themselves, so they are imported on demand
    if name == "ProgressWriter":
        from .logging.progress_writer import ProgressWriter
        return ProgressWriter
    if name in _READER_NAMES:
        from .io import source_config
        return getattr(source_config, name)
    raise AttributeError("module 'cntk.cntk_py' has no attribute %r" % name)


def are_equal(first, second):
    """Whether two data holders (NDArrayView, Value, numpy array) have the same shape and values."""
    a, b = (_np.asarray(x.asarray() if hasattr(x, "asarray") else x) for x in (first, second))
    return a.shape == b.shape and bool(_np.array_equal(a, b))


def allow_renaming_functions():
    """Lets a Function that already has a name be renamed (CNTK refuses by default)."""
    from .core.function import allow_renaming_functions as allow
    allow()


def is_native_user_function_registered(op_id):
    """Native (C++) user functions cannot be registered in cntk-compat, so none ever is."""
    return False
