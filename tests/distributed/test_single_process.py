"""Distributed learners in a lone process: rank 0 of 1, and they train exactly as their local learner."""
import numpy as np
import pytest
import cntk as C
from cntk_compat._incidental_names import NAMES as INCIDENTAL_NAMES
from tests.distributed._models import data, parameter_values, regression, sgd

NAMES = ["WorkerDescriptor", "Communicator", "DistributedLearner", "data_parallel_distributed_learner",
         "block_momentum_distributed_learner", "mpi_communicator"]


def test_cntk_distributed_and_cntk_train_distributed_have_cntks_names():
    import cntk.train.distributed as train_distributed
    incidental = INCIDENTAL_NAMES["cntk.train.distributed"].split()   # ctypes, platform, ... bound by CNTK's imports
    assert sorted(train_distributed.__all__) == sorted(list(NAMES) + incidental)
    for name in NAMES:
        assert getattr(C.distributed, name) is getattr(train_distributed, name)
    assert C.train.distributed is train_distributed


def test_a_lone_process_is_worker_0_of_1():
    comm = C.distributed.Communicator
    assert comm.rank() == 0 and comm.num_workers() == 1
    learner = C.distributed.data_parallel_distributed_learner(sgd(regression()[0].parameters))
    communicator = learner.communicator()
    assert [w.global_rank for w in communicator.workers()] == [0]
    assert communicator.current_worker().global_rank == 0 and communicator.current_worker().is_main()
    assert communicator.is_main()
    communicator.barrier()
    comm.finalize()                     # nothing to end for a lone worker
    assert comm.rank() == 0 and comm.num_workers() == 1
    assert isinstance(C.distributed.mpi_communicator(), comm)


def _train(wrap, minibatches, momentum=False):
    z, loss, x, y = regression()
    local = sgd(z.parameters, momentum)
    learner = wrap(local) if wrap else local
    trainer = C.Trainer(z, (loss, loss), [learner])
    for features, targets in minibatches:
        trainer.train_minibatch({x: features, y: targets})
    return parameter_values(z), trainer


def _minibatches(sizes, seed=0):
    features, targets = data(sum(sizes), seed)
    edges = np.cumsum([0] + list(sizes))
    return [(features[a:b], targets[a:b]) for a, b in zip(edges[:-1], edges[1:])]


@pytest.mark.parametrize("momentum", [False, True])
@pytest.mark.parametrize("distributed_after", [0, 12])
def test_32_bit_data_parallel_trains_exactly_as_the_local_learner(momentum, distributed_after):
    batches = _minibatches([8, 5, 8, 7])
    expected, local_trainer = _train(None, batches, momentum)
    wrap = lambda l: C.distributed.data_parallel_distributed_learner(l, distributed_after=distributed_after)
    got, trainer = _train(wrap, batches, momentum)
    np.testing.assert_array_equal(got, expected)
    assert trainer.total_number_of_samples_seen == local_trainer.total_number_of_samples_seen == 28
    assert trainer.parameter_learners[0].total_number_of_samples_seen == 28
    assert trainer.previous_minibatch_sample_count == 7
    assert trainer.previous_minibatch_loss_average == pytest.approx(local_trainer.previous_minibatch_loss_average)


@pytest.mark.parametrize("bits", [1, 4])
def test_a_lone_quantized_worker_trains_as_its_local_learner(bits):
    """Nothing travels between workers, so nothing is quantized (the hooks are tested with several workers)."""
    batches = _minibatches([8, 8])
    wrap = lambda l: C.distributed.data_parallel_distributed_learner(l, num_quantization_bits=bits)
    got, _ = _train(wrap, batches)
    expected, _ = _train(None, batches)
    np.testing.assert_array_equal(got, expected)


def test_an_empty_minibatch_updates_nothing():
    z, loss, x, y = regression()
    trainer = C.Trainer(z, (loss, loss), [C.distributed.data_parallel_distributed_learner(sgd(z.parameters))])
    before = parameter_values(z)
    assert trainer.train_minibatch({}) is False
    np.testing.assert_array_equal(parameter_values(z), before)
    assert trainer.total_number_of_samples_seen == 0 and trainer.previous_minibatch_sample_count == 0
    with pytest.raises(RuntimeError, match="There was no preceding call to TrainMinibatch"):
        trainer.previous_minibatch_loss_average


def test_checkpoint_round_trip(tmp_path):
    batches = _minibatches([8, 8, 8])
    z, loss, x, y = regression()
    learner = C.distributed.data_parallel_distributed_learner(sgd(z.parameters, momentum=True))
    trainer = C.Trainer(z, (loss, loss), [learner])
    trainer.train_minibatch({x: batches[0][0], y: batches[0][1]})
    path = str(tmp_path / "ckp")
    trainer.save_checkpoint(path, {"position": 8})
    saved = parameter_values(z)
    trainer.train_minibatch({x: batches[1][0], y: batches[1][1]})
    assert trainer.restore_from_checkpoint(path) == {"position": 8}
    np.testing.assert_array_equal(parameter_values(z), saved)
    assert trainer.total_number_of_samples_seen == 8 and learner.total_number_of_samples_seen == 8


def test_warm_start_counts_samples_then_aggregates():
    z, loss, x, y = regression()
    learner = C.distributed.data_parallel_distributed_learner(sgd(z.parameters), distributed_after=10)
    assert learner.distributed_after == 10
    trainer = C.Trainer(z, (loss, loss), [learner])
    for features, targets in _minibatches([6, 6, 6]):
        trainer.train_minibatch({x: features, y: targets})
    assert learner.total_number_of_samples_seen == trainer.total_number_of_samples_seen == 18


@pytest.mark.parametrize("bits", [0, 3, 33, 64])
def test_quantization_bits_must_be_a_power_of_two_up_to_32(bits):
    z = regression()[0]
    with pytest.raises(ValueError, match="num_quantization_bits"):
        C.distributed.data_parallel_distributed_learner(sgd(z.parameters), num_quantization_bits=bits)


def test_asynchronous_buffered_update_is_rejected():
    z = regression()[0]
    with pytest.raises(ValueError, match="use_async_buffered_parameter_update"):
        C.distributed.data_parallel_distributed_learner(sgd(z.parameters), use_async_buffered_parameter_update=True)


@pytest.mark.parametrize("after", [-1, 1.5, True, "10"])
def test_distributed_after_must_be_a_non_negative_integer(after):
    z = regression()[0]
    with pytest.raises(ValueError, match="distributed_after"):
        C.distributed.data_parallel_distributed_learner(sgd(z.parameters), distributed_after=after)


def test_a_distributed_learner_beside_a_local_one_is_refused():
    # CNTK 2.7 refuses the pair in either order when the Trainer is made, with this sentence
    z, loss, x, y = regression()
    params = sorted(z.parameters, key=lambda p: p.name)
    for make_first, make_second in ((C.distributed.data_parallel_distributed_learner, lambda l: l),
                                    (lambda l: l, C.distributed.data_parallel_distributed_learner)):
        learners = [make_first(sgd(params[:1])), make_second(sgd(params[1:]))]
        with pytest.raises(ValueError, match="Cannot use a non-distributed learner for some parameters together "
                                             "with a distributed learner for other parameters, in a single Trainer"):
            C.Trainer(z, (loss, loss), learners)


def test_several_distributed_learners_fail_at_the_update():
    # CNTK 2.7 (its end-to-end multiple_distributed_learners_test): the Trainer is made, and train_minibatch
    # raises this RuntimeError, since none of the learners aggregates the metric
    z, loss, x, y = regression()
    params = sorted(z.parameters, key=lambda p: p.name)
    learners = [C.distributed.data_parallel_distributed_learner(sgd([p])) for p in params]
    trainer = C.Trainer(z, (loss, loss), learners)
    with pytest.raises(RuntimeError, match="Update failed: Metric aggregation did not happen, none of the "
                                           "learners was marked as metric aggregator."):
        trainer.train_minibatch({x: np.ones((1,) + x.shape, np.float32), y: np.zeros((1,) + y.shape, np.float32)})


def test_the_learner_must_be_local():
    z = regression()[0]
    inner = C.distributed.data_parallel_distributed_learner(sgd(z.parameters))
    with pytest.raises(TypeError, match="local learner"):
        C.distributed.data_parallel_distributed_learner(inner)


@pytest.mark.parametrize("variables", [
    {"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_RANK": "0"},
    {"PMI_RANK": "1", "PMI_SIZE": "4", "MPI_LOCALRANKID": "0"}])
def test_mpiexec_rank_variables_become_torchs(monkeypatch, variables):
    import os
    from cntk_compat.distributed.communicator import _adopt_mpi_environment
    # a private copy of the environment: what the function sets must not reach later tests in this process
    monkeypatch.setattr(os, "environ", {name: value for name, value in os.environ.items()
                                        if name not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR",
                                                        "MASTER_PORT", "OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE")})
    os.environ.update(variables)
    _adopt_mpi_environment()
    assert (os.environ["RANK"], os.environ["WORLD_SIZE"], os.environ["LOCAL_RANK"]) == ("1", "4", "0")
    assert (os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"]) == ("127.0.0.1", "29500")


def test_each_mpiexec_job_gets_its_own_default_port(monkeypatch):
    """Two mpiexec jobs on one machine (Open MPI names each job) must not meet on one MASTER_PORT."""
    import os
    from cntk_compat.distributed.communicator import _adopt_mpi_environment
    ports = []
    for job in ("1609760769", "1609236481"):
        monkeypatch.setattr(os, "environ", {"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2",
                                            "OMPI_MCA_ess_base_jobid": job})
        _adopt_mpi_environment()
        ports.append(int(os.environ["MASTER_PORT"]))
        assert 20000 <= ports[-1] < 30000
        # set by the user: kept
        monkeypatch.setattr(os, "environ", {"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2",
                                            "OMPI_MCA_ess_base_jobid": job, "MASTER_PORT": "12345"})
        _adopt_mpi_environment()
        assert os.environ["MASTER_PORT"] == "12345"
    assert ports[0] != ports[1]


def test_the_totals_ride_in_the_carriers_gradient_exactly():
    """The sample count, loss and metric sums travel as the gradient of the carrier parameter (DDP sums it with
    the gradients): the count is split so that it stays exact in float32 beyond 2^24; the loss is unchanged."""
    import torch
    from cntk_compat.distributed.data_parallel import _COUNT_SPLIT, _LearnedParameters, _carrier_dtype
    weight = torch.nn.Parameter(torch.tensor([2.0]))
    module = _LearnedParameters([weight], [True], torch.float32)
    n = 2 ** 25 + 3                                 # not a float32 value
    n_, loss, metric, _, _, carry = module(lambda: (n, (weight * 3.0).sum(), torch.tensor(0.25), {}, ()))
    assert n_ == n and loss.item() == 6.0
    torch.autograd.backward((loss, carry), inputs=[weight, module.carrier])
    low, high, loss_sum, metric_sum, workers = module.carrier.grad.tolist()
    assert int(low) + _COUNT_SPLIT * int(high) == n and (loss_sum, metric_sum, workers) == (6.0, 0.25, 1.0)
    assert weight.grad.tolist() == [3.0]
    _, _, _, _, _, carry = module(None)             # a worker without data: zeros, and its 1
    module.carrier.grad = None
    carry.backward()
    assert module.carrier.grad.tolist() == [0.0, 0.0, 0.0, 0.0, 1.0]
    # 32 bits on the CPU in float32/float64 only: quantized hooks would quantize the totals
    assert _carrier_dtype([weight], 32) is torch.float32
    assert _carrier_dtype([weight.double()], 32) is torch.float64
    assert _carrier_dtype([weight], 1) is None and _carrier_dtype([weight.half()], 32) is None


def test_first_use_prints_cntk_mpi_lines_once():
    # CNTK 2.7 prints these lines on stderr when a process first uses MPI (a distributed learner or the
    # Communicator), once; a lone worker is 1 node of rank 0
    import subprocess
    import sys
    code = ("import cntk as C\n"
            "x = C.input_variable(2); z = C.layers.Dense(1)(x)\n"
            "print('before', flush=True)\n"
            "C.distributed.data_parallel_distributed_learner(C.sgd(z.parameters, C.learning_parameter_schedule(0.1)))\n"
            "print(C.distributed.Communicator.rank(), C.distributed.Communicator.num_workers(), flush=True)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "before\n0 1\n"
    assert [l for l in done.stderr.splitlines() if "ping" in l or "requestnodes" in l] == [
        "ping [requestnodes (before change)]: 1 nodes pinging each other",
        "ping [requestnodes (after change)]: 1 nodes pinging each other",
        "requestnodes [MPIWrapperMpi]: using 1 out of 1 MPI nodes on a single host (1 requested); we (0) are in "
        "(participating)",
        "ping [mpihelper]: 1 nodes pinging each other"]
