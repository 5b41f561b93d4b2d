"""CNTK's native module under its top-level name: CNTK's wheel made ``import _cntk_py`` work (scripts
write ``from _cntk_py import set_fixed_random_seed``); here it is the same module object as ``cntk.cntk_py``."""
import sys

from cntk_compat import cntk_py as _cntk_py

sys.modules[__name__] = _cntk_py
