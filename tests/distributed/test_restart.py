"""Kill one worker under torchrun --max-restarts 1: the restarted workers resume from the last checkpoint and
end exactly as an uninterrupted run (no sample lost or repeated).

torchrun keeps its rendezvous store across restarts; the communicator gives each attempt its own keys (without
that the restarted workers read the killed ones' gloo addresses: "Connection refused", or a hang)."""
import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

from tests.distributed import _workers

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_restart_script.py")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _torchrun(out, data_file, kill_after):
    env = dict(os.environ, KILL_AFTER=str(kill_after), PYTHONPATH=REPO, CNTK_DISTRIBUTED_TIMEOUT_S="60")
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
               "--max-restarts", "1", SCRIPT, str(out), data_file]
    # a session of its own, so that a hang ends with torchrun's workers too
    agent = subprocess.Popen(command, env=env, cwd=str(out), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
    try:
        _, stderr = agent.communicate(timeout=180)
    except subprocess.TimeoutExpired:
        os.killpg(agent.pid, signal.SIGKILL)
        agent.communicate()
        pytest.fail("torchrun did not finish within 180 s")
    assert agent.returncode == 0, stderr[-3000:]
    ranks = []
    for rank in range(2):
        with open(os.path.join(str(out), "rank%d.json" % rank)) as f:
            ranks.append(json.load(f))
    return ranks, stderr


def test_a_killed_worker_is_restarted_from_the_checkpoint_and_ends_as_the_uninterrupted_run(tmp_path):
    data_file = str(tmp_path / "data.ctf")
    _workers.write_ctf(data_file, 60)
    (tmp_path / "killed").mkdir()
    (tmp_path / "whole").mkdir()
    killed, killed_log = _torchrun(tmp_path / "killed", data_file, kill_after=7)  # after the checkpoint at 48
    whole, whole_log = _torchrun(tmp_path / "whole", data_file, kill_after=0)
    for k, w in zip(killed, whole):
        assert k["attempt"] == "1", killed_log[-3000:]
        assert w["attempt"] == "0", whole_log[-3000:]
        assert k["samples"] == w["samples"] == 96
        np.testing.assert_array_equal(k["parameters"], w["parameters"])
