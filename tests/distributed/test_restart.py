"""Kill one worker under torchrun --max-restarts 1: the restarted workers resume from the last checkpoint and
end exactly as an uninterrupted run (no sample lost or repeated)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tests.distributed import _workers
from tests.distributed._spawn import free_port

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_restart_script.py")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _torchrun(out, data_file, kill_after):
    env = dict(os.environ, KILL_AFTER=str(kill_after), PYTHONPATH=REPO, CNTK_DISTRIBUTED_TIMEOUT_S="60")
    command = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--max-restarts", "1",
               "--rdzv_backend", "c10d", "--rdzv_endpoint", "127.0.0.1:%d" % free_port(), SCRIPT, str(out),
               data_file]
    done = subprocess.run(command, env=env, cwd=str(out), capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    ranks = []
    for rank in range(2):
        with open(os.path.join(str(out), "rank%d.json" % rank)) as f:
            ranks.append(json.load(f))
    return ranks


# Known problem (issue 14): alone this passes, but under pytest -n 2 the restarted group sometimes fails gloo's
# full-mesh connect ("Connection refused") or its two workers wait forever after the restart; not yet found.
@pytest.mark.xfail(raises=(AssertionError, subprocess.TimeoutExpired), strict=False,
                   reason="restarted workers sometimes fail gloo's connect or hang under parallel load")
def test_a_killed_worker_is_restarted_from_the_checkpoint_and_ends_as_the_uninterrupted_run(tmp_path):
    data_file = str(tmp_path / "data.ctf")
    _workers.write_ctf(data_file, 60)
    (tmp_path / "killed").mkdir()
    (tmp_path / "whole").mkdir()
    killed = _torchrun(tmp_path / "killed", data_file, kill_after=7)     # after the checkpoint at 48 samples
    whole = _torchrun(tmp_path / "whole", data_file, kill_after=0)
    for k, w in zip(killed, whole):
        assert k["attempt"] == "1" and w["attempt"] == "0"
        assert k["samples"] == w["samples"] == 96
        np.testing.assert_array_equal(k["parameters"], w["parameters"])
