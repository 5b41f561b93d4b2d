"""Two worker processes on the CPU (gloo), as torchrun would start them."""
import numpy as np
import pytest
import torch

import cntk as C
from tests.distributed import _spawn, _workers
from tests.distributed._models import data, parameter_values, regression, sgd


def run_workers(body, out, *args):
    return _spawn.run_workers(body, out, *args, world=2)


def _one_process_on_whole_minibatches(momentum):
    z, loss, x, y = regression()
    trainer = C.Trainer(z, (loss, loss), [sgd(z.parameters, momentum)])
    features, targets = data(24)
    for start in range(0, 24, 8):
        trainer.train_minibatch({x: features[start:start + 8], y: targets[start:start + 8]})
    return parameter_values(z), trainer.previous_minibatch_loss_average


@pytest.mark.parametrize("momentum", [False, True])
def test_two_workers_on_halves_train_as_one_process_on_whole_minibatches(tmp_path, momentum):
    ranks = run_workers(_workers.train_halves, tmp_path, 32, momentum)
    expected, last_loss = _one_process_on_whole_minibatches(momentum)
    np.testing.assert_array_equal(ranks[0]["parameters"], ranks[1]["parameters"])
    np.testing.assert_allclose(ranks[0]["parameters"], expected, rtol=1e-5, atol=1e-7)
    for r in ranks:
        assert r["samples"] == 24 and r["last_count"] == 8
        assert r["last_loss"] == pytest.approx(last_loss, rel=1e-5)    # the loss of both halves


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("bits", [32, 1])
def test_two_workers_on_cuda_train_as_one_process(tmp_path, bits):
    """The workers' default device is a GPU (GPU 0 for both on a one-GPU machine, through gloo)."""
    ranks = run_workers(_workers.train_halves, tmp_path, bits, False, True)
    np.testing.assert_array_equal(ranks[0]["parameters"], ranks[1]["parameters"])
    expected, last_loss = _one_process_on_whole_minibatches(False)
    if bits == 32:
        np.testing.assert_allclose(ranks[0]["parameters"], expected, rtol=1e-5, atol=1e-6)
    else:
        assert not np.array_equal(ranks[0]["parameters"], expected)
    assert ranks[0]["samples"] == 24 and ranks[0]["last_count"] == 8


def test_one_bit_workers_stay_identical(tmp_path):
    ranks = run_workers(_workers.train_halves, tmp_path, 1, False)
    np.testing.assert_array_equal(ranks[0]["parameters"], ranks[1]["parameters"])
    expected, _ = _one_process_on_whole_minibatches(False)
    # close to exact, not equal: each parameter is one quantized column (1 bit: signs and two means)
    assert 0 < np.abs(ranks[0]["parameters"] - expected).max() < 0.1
    assert ranks[0]["samples"] == 24


def test_checkpoint_is_written_by_rank_0_and_restored_by_both(tmp_path):
    ranks = run_workers(_workers.checkpoint, tmp_path)
    for rank, r in enumerate(ranks):
        assert r["written"] == ["own0", "own0.ckp"]      # rank 1's own1 was never written
        assert r["moved"] and r["restored"]
        assert r["external"] == {"rank": rank}
        assert r["samples"] == 8
    np.testing.assert_array_equal(ranks[0]["parameters"], ranks[1]["parameters"])


def test_a_worker_out_of_data_trains_empty_minibatches_until_all_stop(tmp_path):
    ranks = run_workers(_workers.uneven, tmp_path)
    for r in ranks:
        assert r["calls"] == 4          # three minibatches with data somewhere, then one empty everywhere
        assert r["samples"] == 16
    np.testing.assert_array_equal(ranks[0]["parameters"], ranks[1]["parameters"])


def test_seed002_cells_run_as_two_workers(tmp_path):
    ranks = run_workers(_workers.seed002, tmp_path)
    for rank, r in enumerate(ranks):
        assert r["totals"][0] == 800 and r["totals"][2] >= 800 and r["totals"][3] == 800
        assert ("training_session" in r["files"]) == (rank == 0)
        assert ("manual_loop_distributed" in r["files"]) == (rank == 0)
    np.testing.assert_array_equal(ranks[0]["parameters"], ranks[1]["parameters"])


def test_evaluation_totals_are_summed_over_the_workers(tmp_path):
    ranks = run_workers(_workers.test_totals, tmp_path)
    z, loss, x, y = regression()
    features, targets = data(5)
    expected = float(np.sum(loss.eval({x: features[:3], y: targets[:3]})))
    for r in ranks:
        assert r["samples"] == 3
        assert r["metric"] == pytest.approx(expected, rel=1e-6)


def test_finalize_waits_for_every_worker(tmp_path):
    """CNTK's finalize was MPI_Finalize, a collective: no worker closes its connections while a peer still
    uses them."""
    ranks = run_workers(_workers.late_finalize, tmp_path)
    assert ranks[0]["seconds"] >= 1.5
    assert [r["workers"] for r in ranks] == [1, 1]      # each is a lone worker afterwards


def test_finalize_ends_the_process_groups_threads(tmp_path):
    """The DDP modules let go of the group at finalize, so that its gloo threads end while Python still runs (one
    left to interpreter shutdown could abort the process: std::terminate in a destructor taking the GIL)."""
    ranks = run_workers(_workers.finalize_after_training, tmp_path)
    assert [r["backend_alive"] for r in ranks] == [False, False]
    assert [r["last_count"] for r in ranks] == [4, 4]       # each trains alone afterwards


def test_a_hung_worker_makes_the_others_fail_within_the_timeout(tmp_path):
    ranks = run_workers(_workers.hung_peer, tmp_path)
    error = ranks[0]["error"]
    assert error is not None and error.startswith("DistributedError: worker 0 of 2: ") and "timed out" in error.lower()
    assert "CNTK_DISTRIBUTED_TIMEOUT_S=3 s" in error
    assert ranks[0]["seconds"] < 15


def _assert_failed_at_once_naming(ranks, operation):
    """Rank 0's error after its peer died: a DistributedError naming the worker and ``operation``, within 15 s."""
    error = ranks[0]["error"]
    assert error is not None and error.startswith("DistributedError: worker 0 of 2: "), error
    # gloo reports the closed socket as "Connection closed by peer" or "Connection reset by peer"
    assert operation + " failed: " in error and "by peer" in error, error
    assert ranks[0]["seconds"] < 15


def test_a_dead_worker_makes_the_others_fail_at_once_naming_the_operation(tmp_path):
    _assert_failed_at_once_naming(run_workers(_workers.dead_peer, tmp_path),
                                  "DDP's collectives before the forward pass")


def test_a_worker_dead_before_the_gradients_all_reduce_makes_the_others_fail_naming_it(tmp_path):
    _assert_failed_at_once_naming(run_workers(_workers.dead_peer_in_backward, tmp_path),
                                  "the all-reduce of the gradients")


def test_the_timeout_variable_is_checked(monkeypatch):
    from cntk_compat.distributed.communicator import _timeout_from_environment
    monkeypatch.setenv("CNTK_DISTRIBUTED_TIMEOUT_S", "soon")
    with pytest.raises(ValueError, match="CNTK_DISTRIBUTED_TIMEOUT_S"):
        _timeout_from_environment()
    monkeypatch.setenv("CNTK_DISTRIBUTED_TIMEOUT_S", "2.5")
    assert _timeout_from_environment().total_seconds() == 2.5
