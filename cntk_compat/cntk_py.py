"""The parts of CNTK's native module (cntk.cntk_py) that scripts call directly."""
import random as _random

import numpy as _np
import torch as _torch

_state = {"fixed_seed": None, "deterministic": False, "force_setting_device": False}


def set_fixed_random_seed(value):
    """Seed every random generator the library uses (parameter initialization, dropout, samplers)."""
    _state["fixed_seed"] = int(value)
    reset_random_seed(value)


def reset_random_seed(value):
    _torch.manual_seed(int(value))
    _np.random.seed(int(value) % (2 ** 32))
    _random.seed(int(value))


def force_deterministic_algorithms(enable=True):
    _state["deterministic"] = bool(enable)
    _torch.use_deterministic_algorithms(bool(enable), warn_only=True)


def should_force_deterministic_algorithms():
    return _state["deterministic"]


def always_allow_setting_default_device():
    _state["force_setting_device"] = True


def get_random_seed():
    return _state["fixed_seed"]


def __getattr__(name):
    # cntk_py.ProgressWriter is the base class of progress writers; imported on demand (cntk_py loads first)
    if name == "ProgressWriter":
        from .logging.progress_writer import ProgressWriter
        return ProgressWriter
    raise AttributeError("module 'cntk.cntk_py' has no attribute %r" % name)
