"""python -m cntk_compat.migration_report: static analysis of CNTK API use (nothing from the script is run)."""
import glob
import io
import os
import subprocess
import sys

from cntk_compat.migration_report import analyse, report

SCRIPT = '''
import cntk as C
from cntk.layers import Dense as D, Recurrence
import cntk.io
raise SystemExit("the script must not run")
x = C.input_variable(3)
y = D(2)(x)
z = C.native_user_function('MyOp', [x])
w = C.no_such_api(x)
r = cntk.io.MinibatchSource
'''


def test_names_status_and_equivalents():
    rows = {name: (lines, status, eq) for name, lines, status, eq in analyse(SCRIPT)}
    assert rows["layers.Dense"][1] == "supported" and rows["layers.Dense"][2] == "torch.nn.Linear"
    assert rows["input_variable"][0] == [6]
    assert rows["native_user_function"][1] == "raises NotImplementedError"
    assert rows["no_such_api"][1] == "missing"
    assert rows["io.MinibatchSource"][2] == "torch.utils.data.DataLoader"
    assert "layers.Recurrence" in rows


def test_the_repository_examples_use_only_supported_apis():
    root = os.path.join(os.path.dirname(__file__), "..")
    scripts = sorted(glob.glob(os.path.join(root, "examples", "*.py")))
    assert scripts
    out = io.StringIO()
    totals = report(scripts, out)
    assert totals["supported"] > 20 and totals["missing"] == 0 and totals["raises NotImplementedError"] == 0
    assert out.getvalue().splitlines()[-1].startswith("migration_report: ")


def test_command_line(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(SCRIPT)
    done = subprocess.run([sys.executable, "-m", "cntk_compat.migration_report", str(script)], capture_output=True,
                          text=True, check=True, timeout=120)
    assert done.stdout.splitlines()[-1] == "migration_report: 5 supported, 1 raise NotImplementedError, 1 missing"
