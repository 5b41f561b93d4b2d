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
# CNTK 2.7's parameters (sorted by name) after training_session(max_samples=300) with 4 workers: rank 0, ranks 1-3
CNTK27_FOUR_WORKERS_FIVE_SWEEPS = (
    [-0.0340904, 0.0274068, -0.0118421, -0.1032200, 0.3208752, -0.2865868, 0.1129555, -0.1341194],
    [-0.0182323, 0.0247034, 0.0102161, -0.0908898, 0.3191704, -0.2822023, 0.1032872, -0.1221059])


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
        if (world, sweeps) != (4, 5):
            np.testing.assert_array_equal(r["parameters"], ranks[0]["parameters"])
    if (world, sweeps) == (4, 5):
        # the workers end with partial blocks of different sizes, so each filters the last aggregation with a
        # block momentum of its own: rank 0 ends with another model than the others, as in CNTK 2.7, whose
        # final parameters (same data, seed and settings, mpiexec -n 4) were these
        np.testing.assert_allclose(ranks[0]["parameters"], CNTK27_FOUR_WORKERS_FIVE_SWEEPS[0], rtol=0, atol=2e-6)
        for r in ranks[1:]:
            np.testing.assert_allclose(r["parameters"], CNTK27_FOUR_WORKERS_FIVE_SWEEPS[1], rtol=0, atol=2e-6)
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
    assert len(logs[0]) >= 4, logs[0]           # every 40 samples and at the end
    for log in logs[1:]:
        assert log == logs[0]


def test_each_worker_summarizes_when_its_own_count_passes_the_frequency(tmp_path):
    # CNTK 2.7 under mpiexec -n 2 on the same data and settings: between block aggregations a worker counts its own
    # samples, summarizes when that count passes the frequency, and the summary's averaging of the loss over the
    # workers agrees on the count of all workers' samples (so the second summary comes after one more minibatch)
    data_file = str(tmp_path / "data.ctf")
    with open(data_file, "w") as f:
        for i in range(20):
            f.write("|x %g %g |y %g\n" % (i * 0.1, 1 - i * 0.05, (i % 3) * 0.5))
    ranks = run_workers(_workers.bmuf_summaries, tmp_path, data_file)
    for r in ranks:
        assert r["summaries"] == [["1.174676", 9], ["0.615511", 3], ["0.201269", 6], ["0.133581", 2], ["0.000000", 0]]
        assert r["total"] == 40
