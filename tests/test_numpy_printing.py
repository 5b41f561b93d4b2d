"""import cntk prints numpy scalars as the numpy 1.x CNTK ran with, unless told otherwise."""
import os
import subprocess
import sys

SNIPPET = "import numpy as np, cntk; print([np.int64(1), np.float32(0.5)])"


def run(env_value=None, code=SNIPPET):
    env = dict(os.environ)
    env.pop("CNTK_COMPAT_NUMPY_PRINT", None)
    if env_value is not None:
        env["CNTK_COMPAT_NUMPY_PRINT"] = env_value
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_cntk_era_printing_is_the_default_can_be_switched_off_and_declined():
    assert run(code=SNIPPET + "; cntk.numpy_printing.use_cntk_era_printing(False); print([np.int64(1)])") == \
        "[1, 0.5]\n[np.int64(1)]"
    assert run("numpy2") == "[np.int64(1), np.float32(0.5)]"


def test_a_program_that_chose_a_legacy_mode_keeps_it():
    assert run(code="import numpy as np; np.set_printoptions(legacy='1.13'); import cntk; "
                    "print(np.get_printoptions()['legacy'])") == "1.13"
