"""CNTK 2.7 attributes its DeprecationWarnings to its own modules (stacklevel=2 from its helpers), so
Python's default filters hide them; a script calling a deprecated method in __main__ prints nothing."""
import os
import subprocess
import sys
import warnings

import cntk as C

SCRIPT = """
import cntk as C
printer = C.logging.ProgressPrinter(1)
printer.update(0.5, 10)
printer.update_with_trainer(None)
C.train.TestConfig(None, mb_size=16)
print("done")
"""


def test_deprecations_are_silent_in_main_under_default_filters():
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "DEPRECATED" not in out.stderr
    assert " Minibatch[   1-   1]: loss = 0.500000 * 10;" in out.stdout


def test_deprecations_are_attributed_to_the_package():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        C.logging.ProgressPrinter(1).update_with_trainer(None)
        C.train.TestConfig(None, mb_size=16)
    files = [os.path.basename(w.filename) for w in caught if w.category is DeprecationWarning]
    assert files == ["progress_print.py", "training_session.py"]


def _warn_here():
    warnings.warn("same place", RuntimeWarning)


def test_reset_last_leaves_pythons_once_per_place_registry_alone():
    # CNTK 2.7's reset_last changes no warning filter: a warning a script gets at one place (the feeding's
    # 'data is not C contiguous') is shown once however often the progress is printed. A catch_warnings there
    # resets the registry, and the warning came back after each print.
    printer = C.logging.ProgressPrinter(0)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("default")
        for _ in range(3):
            _warn_here()
            printer.update(0.5, 10)
            printer.reset_last()
    assert [str(w.message) for w in got if w.category is RuntimeWarning] == ["same place"]
