"""Block momentum in a training session with gloo workers: the workers agree on when to stop for any
max_samples, with checkpoints and after a restart, and a restarted run equals an uninterrupted one."""
import re

import numpy as np
import pytest

from tests.distributed import _workers
from tests.distributed._spawn import run_workers

SWEEP = 60          # samples in the data file
BLOCK = 16          # the learner's block size (samples of all workers)
MINIBATCH = 8


@pytest.mark.parametrize("world, sweeps, checkpoints", [(2, 1, 24), (2, 1.17, 24), (2, 5, 24), (4, 1.17, 24),
                                                        (2, 1, 0), (2, 1.17, 0), (2, 5, 0), (4, 5, 0)])
def test_workers_finish_together_for_any_max_samples(tmp_path, world, sweeps, checkpoints):
    data_file = str(tmp_path / "data.ctf")
    _workers.write_ctf(data_file, SWEEP)
    max_samples = int(round(sweeps * SWEEP))
    ranks = run_workers(_workers.bmuf_session, tmp_path, data_file, [max_samples], checkpoints, world=world)
    total = ranks[0]["totals"][0]
    for r in ranks:
        assert r["totals"] == [total]
        np.testing.assert_array_equal(r["parameters"], ranks[0]["parameters"])
    # CNTK's rule: each worker stops when its own count reaches max_samples; between aggregations it counts only
    # its own samples, so all workers together may pass max_samples by less than what the others trained
    # since the last aggregation (less than a block)
    assert max_samples <= total < max_samples + BLOCK


def test_restart_from_checkpoint_equals_the_uninterrupted_run(tmp_path):
    data_file = str(tmp_path / "data.ctf")
    _workers.write_ctf(data_file, SWEEP)
    (tmp_path / "once").mkdir()
    (tmp_path / "twice").mkdir()
    once = run_workers(_workers.bmuf_session, tmp_path / "once", data_file, [96], 32)
    twice = run_workers(_workers.bmuf_session, tmp_path / "twice", data_file, [64, 96], 32)
    for a, b in zip(once, twice):
        assert b["totals"] == [64, a["totals"][0]]
        np.testing.assert_array_equal(a["parameters"], b["parameters"])


@pytest.mark.parametrize("world", [2, 4])
def test_every_worker_prints_the_same_summaries_averaged_over_the_workers(tmp_path, world):
    data_file = str(tmp_path / "data.ctf")
    _workers.write_ctf(data_file, SWEEP)
    run_workers(_workers.bmuf_session, tmp_path, data_file, [3 * SWEEP], 24, 40, world=world)
    logs = []
    for rank in range(world):
        with open(str(tmp_path / ("progress%d.log" % rank))) as f:
            # up to the sample count: the elapsed time differs
            logs.append([re.match(r"(Finished Epoch.*\* \d+)", line).group(1) for line in f if "Finished Epoch" in line])
    assert len(logs[0]) >= 4, logs[0]           # every 40 samples (at the next aggregation) and at the end
    for log in logs[1:]:
        assert log == logs[0]
