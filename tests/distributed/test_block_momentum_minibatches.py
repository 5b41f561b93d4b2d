"""With a block momentum learner, CNTK 2.7's training_session gives every worker minibatches of the full size
(its partition of a minibatch of size * workers; data-parallel workers share one minibatch of that size), and
near max_samples the minibatch is what is left by the worker's own count. Golden values: CNTK 2.7 under
`mpiexec -n 2` / `-n 4` on the same 60-line CTF file, block 16, minibatch 8, three runs (max_samples 60, 70,
300), each worker's non-empty minibatch sample counts and the totals."""
from tests.distributed import _workers
from tests.distributed._bm_minibatch_workers import bm_minibatches
from tests.distributed._spawn import run_workers

CNTK27 = {
    2: ([[[8, 8, 8, 6, 3], [8, 8, 8, 8, 3, 2, 1], [8] * 18 + [6, 3]],
         [[8, 8, 8, 6, 3], [8, 8, 8, 8, 3, 1, 1, 1], [8] * 18 + [6, 3]]], [66, 76, 306]),
    4: ([[[8, 7], [8, 8, 2, 1, 1], [8] * 9 + [3, 3]],
         [[8, 7], [8, 8, 2, 1, 1], [8] * 9 + [3, 2]],
         [[8, 7], [8, 8, 1, 1, 1, 1], [8] * 9 + [3, 2]],
         [[8, 7], [8, 8, 1, 1, 1, 1], [8] * 9 + [3, 2]]], [60, 80, 309]),
}


def _check(tmp_path, world):
    data_file = str(tmp_path / "data.ctf")
    _workers.write_ctf(data_file, 60)
    ranks = run_workers(bm_minibatches, tmp_path, data_file, [60, 70, 300], world=world)
    counts, totals = CNTK27[world]
    assert [r["counts"] for r in ranks] == counts
    assert all(r["totals"] == totals for r in ranks)


def test_two_workers_read_full_minibatches(tmp_path):
    _check(tmp_path, 2)


def test_four_workers_read_full_minibatches(tmp_path):
    _check(tmp_path, 4)
