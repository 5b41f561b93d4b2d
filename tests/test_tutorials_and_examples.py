"""Runs every tutorial (tutorials/NN_*.py) and every example (examples/*.py) in its quick mode, each in a
process of its own as a user would, and checks that it finished, printed CNTK's progress lines and wrote the
pictures it announced."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = sorted((ROOT / "tutorials").glob("[0-9][0-9]_*.py"))
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.py") if not p.name.startswith("_"))
# The guided tour is the README's first command: it runs as it is, without our --quick/--out options.
AS_IS = {"guided_tour_logistic_regression.py"}
# Scripts launched as torchrun would launch them, with two workers.
DISTRIBUTED = {"08_distributed_1bit_sgd.py", "distributed_1bit_sgd.py"}
PROGRESS = re.compile(r"^ average +since +average +since +examples$|^Finished Epoch\[|^Finished Evaluation",
                      re.MULTILINE)
TIMEOUT_S = 300


def run_script(path, tmp_path):
    command = [sys.executable, str(path)]
    if path.name in DISTRIBUTED:
        command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
                   str(path)]
    if path.name not in AS_IS:
        command += ["--quick", "--out", str(tmp_path / "out")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               OMP_NUM_THREADS="1")
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    output = done.stdout + done.stderr
    assert done.returncode == 0, "%s failed (exit %d):\n%s" % (path.name, done.returncode, output[-6000:])
    return output


@pytest.mark.parametrize("path", TUTORIALS + EXAMPLES, ids=lambda p: "%s/%s" % (p.parent.name, p.name))
def test_runs_in_quick_mode(path, tmp_path):
    output = run_script(path, tmp_path)
    assert PROGRESS.search(output), "%s printed no CNTK progress line:\n%s" % (path.name, output[-3000:])
    for picture in re.findall(r"^saved (.+)$", output, re.MULTILINE):
        assert Path(picture).stat().st_size > 0, picture

