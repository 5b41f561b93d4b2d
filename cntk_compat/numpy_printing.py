"""CNTK-era printing of numpy scalars.

CNTK 2.7 ran with numpy 1.x, which printed a list of numpy scalars as ``[1, 0, 1]``; numpy 2 prints
``[np.int64(1), np.int64(0), np.int64(1)]``. A CNTK script that prints such lists (predicted labels, argmax
results, ...) would print different lines here, so ``import cntk`` switches numpy to the printing of
numpy 1.25 (``np.set_printoptions(legacy="1.25")``), which changes only how scalars are shown; arrays print
as before. It leaves numpy alone when the program already chose a legacy mode, and when the environment
variable ``CNTK_COMPAT_NUMPY_PRINT`` is ``numpy2``. ``use_cntk_era_printing(False)`` turns it off again.
"""
import os

import numpy as np

__all__ = ["use_cntk_era_printing"]

_NUMPY_2 = int(np.__version__.split(".")[0]) >= 2


def use_cntk_era_printing(enable=True):
    """Print numpy scalars as numpy 1.x did (``enable``), or as this numpy does by default."""
    if _NUMPY_2:
        np.set_printoptions(legacy="1.25" if enable else False)


def apply_default():
    """What ``import cntk`` does: CNTK-era printing unless the program or its environment chose otherwise."""
    if os.environ.get("CNTK_COMPAT_NUMPY_PRINT", "").lower() == "numpy2":
        return
    if _NUMPY_2 and np.get_printoptions().get("legacy") is False:
        use_cntk_era_printing(True)
