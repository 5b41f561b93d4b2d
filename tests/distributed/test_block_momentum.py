"""Block momentum (BMUF) distributed learner: validation, the block filter against a numpy computation for one
worker and for two gloo workers (torch.multiprocessing.spawn), end of data, checkpoints."""
import math
import os

import numpy as np
import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

import cntk as C
from cntk_compat.distributed.block_momentum import (BlockMomentumDistributedLearner,
                                                    block_momentum_distributed_learner)
from tests.distributed._spawn import agent_environment, agent_store

LR = 0.05
BATCH = 2


# -- the model and its numpy twin -----------------------------------------------------------------------------
def _model():
    """A Dense(2) layer on 3 inputs with a squared error loss: parameters W (3, 2) and b (2,)."""
    x = C.input_variable(3)
    y = C.input_variable(2)
    z = C.layers.Dense(2)(x)
    return x, y, z, C.squared_error(z, y)


def _twin_models():
    """Two _model()s starting from the same parameter values."""
    first, second = _model(), _model()
    for p, q in zip(first[2].parameters, second[2].parameters):
        q.value = p.value
    return first, second


def _train_in_lockstep(X, Y, first, second, rtol, atol, every_step=False):
    """Trains both (x, y, z, trainer) on the same minibatches; their parameters must agree at the end (or after
    every step)."""
    (x, y, z, trainer), (x2, y2, z2, other) = first, second
    for k in range(X.shape[1]):
        trainer.train_minibatch({x: X[0, k], y: Y[0, k]})
        other.train_minibatch({x2: X[0, k], y2: Y[0, k]})
        if every_step or k == X.shape[1] - 1:
            for p, q in zip(z.parameters, z2.parameters):
                np.testing.assert_allclose(p.value, q.value, rtol=rtol, atol=atol)


def _theta(z):
    """The parameters as one float64 vector (W row major, then b)."""
    by_shape = {p.shape: p.value.astype(np.float64) for p in z.parameters}
    return np.concatenate([by_shape[(3, 2)].ravel(), by_shape[(2,)]])


def _gradient(theta, X, Y):
    """The gradient of the squared error summed over the minibatch."""
    W, b = theta[:6].reshape(3, 2), theta[6:]
    E = X @ W + b - Y
    return np.concatenate([(2 * X.T @ E).ravel(), 2 * E.sum(0)])


def _data(workers, minibatches, seed):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, (workers, minibatches, BATCH, 3)).astype(np.float32)
    Y = rng.uniform(-1, 1, (workers, minibatches, BATCH, 2)).astype(np.float32)
    return X, Y


def _bmuf_reference(theta0, X, Y, block_size, time_constant, nesterov, block_lr, distributed_after=0):
    """BMUF with plain sgd computed by hand: the trajectory (per minibatch, per worker) and the model after the
    end-of-data aggregation."""
    workers, minibatches = X.shape[:2]
    per_worker_block = block_size // workers
    thetas = [theta0.copy() for _ in range(workers)]
    start, delta = theta0.copy(), np.zeros_like(theta0)
    samples_seen, in_block = 0, 0
    trajectory = []

    def aggregate():
        nonlocal start, delta, thetas, in_block
        # (also after no samples: bm is then 1 and the stored delta is applied again, as in CNTK 2.7)
        bm = 0.0 if time_constant == 0 else math.exp(-in_block * workers / time_constant)
        summed = sum(start - t for t in thetas)
        delta = bm * delta + (1 - bm) * block_lr * summed
        start = start - delta - (bm * delta if nesterov else 0.0)
        thetas = [start.copy() for _ in range(workers)]
        in_block = 0

    for k in range(minibatches):
        warm_up = distributed_after > samples_seen + BATCH    # CNTK 2.7: each worker by its own count
        thetas = [t - LR * _gradient(t, X[r, k], Y[r, k]) for r, t in enumerate(thetas)]
        samples_seen += BATCH
        if not warm_up:
            in_block += BATCH
            if in_block >= per_worker_block:
                aggregate()
        trajectory.append([t.copy() for t in thetas])
    aggregate()
    return np.array(trajectory), thetas[0]


def _train(learner_factory, X, Y):
    """Trains on worker 0's data with a Trainer, then ends the data (an empty minibatch).

    Returns the model, the learner, the initial parameters, the parameters after every minibatch, and the
    Trainer's answer to the empty minibatch."""
    x, y, z, loss = _model()
    theta0 = _theta(z)
    learner = learner_factory(z.parameters)
    trainer = C.Trainer(z, (loss, loss), [learner])
    trajectory = []
    for k in range(X.shape[1]):
        assert trainer.train_minibatch({x: X[0, k], y: Y[0, k]}) is True
        trajectory.append(_theta(z))
    return z, learner, theta0, np.array(trajectory), trainer.train_minibatch({})


def _sgd(parameters):
    return C.sgd(parameters, C.learning_parameter_schedule_per_sample(LR))


# -- validation -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, message", [
    (dict(block_size=0), "block_size must be a positive integer"),
    (dict(block_size=2.5), "block_size must be a positive integer"),
    (dict(block_size=True), "block_size must be a positive integer"),
    (dict(block_size=8, block_momentum_as_time_constant=-1.0), "block_momentum_as_time_constant must be"),
    (dict(block_size=8, block_momentum_as_time_constant=float("inf")), "block_momentum_as_time_constant"),
    (dict(block_size=8, block_learning_rate=0.0), "block_learning_rate must be a positive"),
    (dict(block_size=8, block_learning_rate=-0.5), "block_learning_rate must be a positive"),
    (dict(block_size=8, distributed_after=-1), "distributed_after must be a non-negative integer"),
])
def test_bad_arguments_are_named(kwargs, message):
    _, _, z, _ = _model()
    with pytest.raises(ValueError, match=message):
        block_momentum_distributed_learner(_sgd(z.parameters), **kwargs)


def test_negative_sample_count_is_rejected():
    _, _, z, _ = _model()
    learner = block_momentum_distributed_learner(_sgd(z.parameters), block_size=4)
    grads = {p: torch.zeros_like(p.tensor) for p in z.parameters}
    with pytest.raises(ValueError, match="training_sample_count must be a non-negative integer"):
        learner.update(grads, -2)


def test_default_block_momentum_of_a_lone_worker_is_zero():
    _, _, z, _ = _model()
    learner = block_momentum_distributed_learner(_sgd(z.parameters), block_size=8)
    learner._samples_in_block = 8
    assert learner._block_momentum() == 0.0


def test_block_momentum_from_time_constant():
    _, _, z, _ = _model()
    learner = block_momentum_distributed_learner(_sgd(z.parameters), block_size=8,
                                                 block_momentum_as_time_constant=20.0)
    learner._samples_in_block = 8
    assert learner._block_momentum() == pytest.approx(math.exp(-8 / 20.0), rel=1e-12)
    learner._samples_in_block = 6    # a shorter block (end of data, checkpoint) is filtered less
    assert learner._block_momentum() == pytest.approx(math.exp(-6 / 20.0), rel=1e-12)
    learner._samples_in_block = 0    # nothing since the last aggregation: the stored delta is applied again
    assert learner._block_momentum() == 1.0


# -- one worker -----------------------------------------------------------------------------------------------
def test_without_block_momentum_one_worker_equals_the_local_learner():
    X, Y = _data(1, 7, seed=1)
    (x, y, z, loss), (x2, y2, z2, loss2) = _twin_models()
    local = C.Trainer(z2, (loss2, loss2), [_sgd(z2.parameters)])
    bmuf = block_momentum_distributed_learner(_sgd(z.parameters), block_size=4)   # default: bm = 0 for 1 worker
    trainer = C.Trainer(z, (loss, loss), [bmuf])
    _train_in_lockstep(X, Y, (x, y, z, trainer), (x2, y2, z2, local), rtol=1e-6, atol=1e-7, every_step=True)
    assert bmuf.total_number_of_samples_seen == 7 * BATCH


def test_momentum_sgd_without_reset_and_block_momentum_equals_the_local_learner():
    X, Y = _data(1, 6, seed=2)
    (x, y, z, loss), (x2, y2, z2, loss2) = _twin_models()

    def momentum(parameters):
        return C.momentum_sgd(parameters, C.learning_parameter_schedule_per_sample(LR), C.momentum_schedule(0.9))

    local = C.Trainer(z2, (loss2, loss2), [momentum(z2.parameters)])
    bmuf = block_momentum_distributed_learner(momentum(z.parameters), block_size=4,
                                              reset_sgd_momentum_after_aggregation=False)
    trainer = C.Trainer(z, (loss, loss), [bmuf])
    _train_in_lockstep(X, Y, (x, y, z, trainer), (x2, y2, z2, local), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("nesterov", [True, False])
@pytest.mark.parametrize("distributed_after", [0, 4])
def test_one_worker_block_filter_follows_the_formula(nesterov, distributed_after):
    X, Y = _data(1, 9, seed=3)
    block_size, time_constant, block_lr = 4, 4 / math.log(2), 0.7     # bm = 0.5 for a full block

    def factory(parameters):
        return block_momentum_distributed_learner(_sgd(parameters), block_size, time_constant, nesterov,
                                                  block_learning_rate=block_lr,
                                                  distributed_after=distributed_after)

    z, learner, theta0, trajectory, more = _train(factory, X, Y)
    expected, final = _bmuf_reference(theta0, X, Y, block_size, time_constant, nesterov, block_lr,
                                      distributed_after)
    np.testing.assert_allclose(trajectory, expected[:, 0], rtol=1e-5, atol=1e-6)
    assert more is False                                 # the end of data: the last (partial) block is aggregated
    np.testing.assert_allclose(_theta(z), final, rtol=1e-5, atol=1e-6)
    assert learner.total_number_of_samples_seen == 9 * BATCH


@pytest.mark.parametrize("nesterov", [True, False])
def test_each_empty_minibatch_after_a_block_applies_the_stored_delta_again(nesterov):
    """CNTK 2.7 aggregates at every empty minibatch after the end of the data, also with no samples since the
    last aggregation: the block momentum is then 1, so the model moves by the stored filtered delta (twice
    with Nesterov), the same amount at every call (measured with CNTK 2.7, 1 and 2 workers)."""
    X, Y = _data(1, 4, seed=10)
    x, y, z, loss = _model()
    learner = block_momentum_distributed_learner(_sgd(z.parameters), 4, 4 / math.log(2), nesterov)
    trainer = C.Trainer(z, (loss, loss), [learner])
    for k in range(4):                                 # aggregations after minibatches 2 and 4
        trainer.train_minibatch({x: X[0, k], y: Y[0, k]})
    after_blocks = _theta(z)
    by_shape = {tuple(t.shape): t.cpu().numpy().astype(np.float64)     # (state_dict would aggregate first)
                for t in learner._per_parameter(learner._momentum_delta)}
    delta = np.concatenate([by_shape[(3, 2)].ravel(), by_shape[(2,)]])      # ordered as _theta
    steps = []
    for _ in range(3):
        assert trainer.train_minibatch({}) is False
        steps.append(_theta(z))
    moves = np.diff(np.array([after_blocks] + steps), axis=0)
    np.testing.assert_allclose(moves, np.tile(-(2.0 if nesterov else 1.0) * delta, (3, 1)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reset", [True, False])
def test_local_momentum_is_reset_after_aggregation(reset):
    X, Y = _data(1, 3, seed=4)

    def factory(parameters):
        local = C.momentum_sgd(parameters, C.learning_parameter_schedule_per_sample(LR), C.momentum_schedule(0.9))
        return block_momentum_distributed_learner(local, block_size=100,
                                                  reset_sgd_momentum_after_aggregation=reset)

    _, learner, _, _, _ = _train(factory, X, Y)       # one aggregation: at the end of data
    smoothed = [t for s in learner._learner.state_dict()["smoothed_gradients"] for t in s.values()]
    assert smoothed and all(bool((t == 0).all()) == reset for t in smoothed)


def test_no_aggregation_during_warm_up():
    X, Y = _data(1, 3, seed=5)

    def factory(parameters):
        return block_momentum_distributed_learner(_sgd(parameters), block_size=2, block_momentum_as_time_constant=3.0,
                                                  distributed_after=1000)

    z, learner, theta0, trajectory, more = _train(factory, X, Y)
    local = theta0.copy()
    for k in range(X.shape[1]):
        local = local - LR * _gradient(local, X[0, k], Y[0, k])
    np.testing.assert_allclose(trajectory[-1], local, rtol=1e-5, atol=1e-6)
    assert more is False
    np.testing.assert_allclose(_theta(z), local, rtol=1e-5, atol=1e-6)   # no final aggregation either
    assert learner.state_dict()["extra"]["warm_start_samples"] is None


def test_checkpoint_aggregates_first_and_round_trips():
    X, Y = _data(1, 8, seed=6)
    x, y, z, loss = _model()
    learner = block_momentum_distributed_learner(_sgd(z.parameters), block_size=6,
                                                 block_momentum_as_time_constant=5.0)
    trainer = C.Trainer(z, (loss, loss), [learner])
    for k in range(4):
        trainer.train_minibatch({x: X[0, k], y: Y[0, k]})
    theta0 = _theta(z)
    state = learner.state_dict()         # 8 samples: one block of 6, then 2 aggregated by the checkpoint
    saved_values = [p.value for p in z.parameters]
    extra = state["extra"]
    assert extra["samples_in_block"] == 0
    for start, value in zip(extra["block_start"], saved_values):
        np.testing.assert_array_equal(start.cpu().numpy(), value)
    assert [tuple(t.shape) for t in extra["block_momentum_delta"]] == [(3, 2), (2,)]
    assert any(bool(t.abs().sum() > 0) for t in extra["block_momentum_delta"])
    assert not np.allclose(_theta(z), theta0)         # bm = exp(-2/5): the 2 samples moved the model

    def rest():
        for k in range(4, 8):
            trainer.train_minibatch({x: X[0, k], y: Y[0, k]})
        trainer.train_minibatch({})
        return _theta(z)

    first = rest()
    for p, v in zip(z.parameters, saved_values):
        p.value = v
    learner.load_state_dict(state)
    np.testing.assert_array_equal(rest(), first)


def test_load_state_rejects_mismatched_block_state():
    _, _, z, _ = _model()
    learner = block_momentum_distributed_learner(_sgd(z.parameters), block_size=4)
    state = learner.state_dict()
    state["extra"] = dict(state["extra"], block_start=[torch.zeros(3, 2), torch.zeros(3)],
                          block_momentum_delta=[torch.zeros(3, 2), torch.zeros(2)])
    with pytest.raises(ValueError, match=r"block_start of parameter 1 has shape \(3,\), expected \(2,\)"):
        learner.load_state_dict(state)


def test_is_a_distributed_learner_over_the_local_parameters():
    _, _, z, _ = _model()
    local = _sgd(z.parameters)
    learner = block_momentum_distributed_learner(local, block_size=4)
    assert isinstance(learner, BlockMomentumDistributedLearner)
    assert list(learner.parameters) == list(local.parameters)


# -- two gloo workers -----------------------------------------------------------------------------------------
def _two_worker_run(rank, port, out_dir, X, Y, block_size, nesterov, block_lr, checkpoint_after):
    """One worker: trains on its own data, records its parameters after every minibatch and after the end of
    data; with ``checkpoint_after``, also saves a checkpoint there (all workers) and replays from it."""
    agent_environment(port)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=2)
    try:
        C.device.try_set_default_device(C.device.cpu())
        x, y, z, loss = _model()
        theta0 = _theta(z)
        learner = block_momentum_distributed_learner(_sgd(z.parameters), block_size, None, nesterov,
                                                     block_learning_rate=block_lr)
        trainer = C.Trainer(z, (loss, loss), [learner])
        checkpoint = os.path.join(out_dir, "bmuf.ckp")
        result, trajectory = {}, []
        for k in range(X.shape[1]):
            trainer.train_minibatch({x: X[rank, k], y: Y[rank, k]})
            trajectory.append(_theta(z))
            if k + 1 == checkpoint_after:
                trainer.save_checkpoint(checkpoint)
                result["checkpoint_theta"] = _theta(z)
        result.update(theta0=theta0, trajectory=np.array(trajectory), more=trainer.train_minibatch({}),
                      final=_theta(z), samples=trainer.total_number_of_samples_seen)
        if checkpoint_after:
            trainer.restore_from_checkpoint(checkpoint)
            for k in range(checkpoint_after, X.shape[1]):
                trainer.train_minibatch({x: X[rank, k], y: Y[rank, k]})
            trainer.train_minibatch({})
            result["replayed"] = _theta(z)
        np.savez(os.path.join(out_dir, "rank%d.npz" % rank), **result)
    finally:
        dist.destroy_process_group()


def _spawn_two_workers(tmp_path, X, Y, block_size, nesterov, block_lr, checkpoint_after=0):
    store = agent_store(2)
    mp.spawn(_two_worker_run, args=(store.port, str(tmp_path), X, Y, block_size, nesterov, block_lr,
                                    checkpoint_after), nprocs=2, join=True)
    return [dict(np.load(os.path.join(str(tmp_path), "rank%d.npz" % r))) for r in range(2)]


@pytest.mark.timeout(300)   # two processes on a loaded machine
def test_two_workers_follow_bmuf_and_share_the_model_after_each_block(tmp_path):
    X, Y = _data(2, 7, seed=8)
    block_size, block_lr = 8, 0.9         # 4 samples (2 minibatches) per worker per block
    results = _spawn_two_workers(tmp_path, X, Y, block_size, nesterov=True, block_lr=block_lr)
    theta0 = results[0]["theta0"]         # the main worker's initial model is every worker's first block start
    time_constant = -block_size / math.log(0.5)     # CNTK's default for 2 workers: bm = 1 - 1/2
    expected, final = _bmuf_reference(theta0, X, Y, block_size, time_constant, True, block_lr)
    for rank, result in enumerate(results):
        np.testing.assert_allclose(result["trajectory"], expected[:, rank], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(result["final"], final, rtol=1e-5, atol=1e-6)
        assert not result["more"]
        assert int(result["samples"]) == 2 * 7 * BATCH
    for k in (1, 3, 5):                   # right after each aggregation both workers hold the same model
        np.testing.assert_array_equal(results[0]["trajectory"][k], results[1]["trajectory"][k])
    np.testing.assert_array_equal(results[0]["final"], results[1]["final"])


@pytest.mark.timeout(300)   # two processes on a loaded machine
def test_two_workers_checkpoint_aggregates_and_replays(tmp_path):
    X, Y = _data(2, 6, seed=9)
    results = _spawn_two_workers(tmp_path, X, Y, block_size=12, nesterov=False, block_lr=1.0,
                                 checkpoint_after=2)
    np.testing.assert_array_equal(results[0]["checkpoint_theta"], results[1]["checkpoint_theta"])
    for result in results:
        np.testing.assert_array_equal(result["replayed"], result["final"])
    np.testing.assert_array_equal(results[0]["replayed"], results[1]["replayed"])
