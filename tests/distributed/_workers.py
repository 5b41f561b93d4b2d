"""Worker bodies for the multi-process tests: each runs in a process of its own (torch.multiprocessing.spawn),
joins the gloo group through the environment as torchrun would set it, and writes its results to ``out``."""
import json
import os

import numpy as np
import torch

import cntk as C
from tests.distributed._models import data, parameter_values, regression, sgd
from tests.distributed._spawn import agent_environment


def data_parallel_worker(rank, world, port):
    """Joins the workers; a regression model and a Trainer with a 32-bit data-parallel SGD learner."""
    join(rank, world, port)
    z, loss, x, y = regression()
    learner = C.distributed.data_parallel_distributed_learner(sgd(z.parameters))
    return z, loss, x, y, C.Trainer(z, (loss, loss), [learner])


def join(rank, world, port, on_gpu=False):
    agent_environment(port)
    os.environ.update(WORLD_SIZE=str(world), RANK=str(rank), LOCAL_RANK=str(rank))
    torch.set_num_threads(1)
    C.try_set_default_device(C.gpu(rank % torch.cuda.device_count()) if on_gpu else C.cpu())


def save(out, rank, values, **results):
    np.save(os.path.join(out, "rank%d.npy" % rank), values)
    with open(os.path.join(out, "rank%d.json" % rank), "w") as f:
        json.dump(results, f)


def train_halves(rank, world, port, out, bits, momentum, on_gpu=False):
    """Each worker trains on its half of every minibatch; rank 1 starts from other parameter values, which the
    learner replaces by rank 0's."""
    join(rank, world, port, on_gpu)
    z, loss, x, y = regression()
    if rank == 1:
        for p in z.parameters:
            p.value = p.value + 1.0
    learner = C.distributed.data_parallel_distributed_learner(sgd(z.parameters, momentum),
                                                              num_quantization_bits=bits)
    trainer = C.Trainer(z, (loss, loss), [learner])
    features, targets = data(24)
    for start in range(0, 24, 8):
        part = slice(start + rank * 4, start + rank * 4 + 4)
        trainer.train_minibatch({x: features[part], y: targets[part]})
    save(out, rank, parameter_values(z), samples=trainer.total_number_of_samples_seen,
         last_count=trainer.previous_minibatch_sample_count, last_loss=trainer.previous_minibatch_loss_average)
    C.distributed.Communicator.finalize()


def checkpoint(rank, world, port, out):
    """Only rank 0 writes; both restore, each getting back its own external state."""
    z, loss, x, y, trainer = data_parallel_worker(rank, world, port)
    features, targets = data(16)
    trainer.train_minibatch({x: features[rank * 4:rank * 4 + 4], y: targets[rank * 4:rank * 4 + 4]})
    trainer.save_checkpoint(os.path.join(out, "own%d" % rank))
    written = sorted(name for name in os.listdir(out) if name.startswith("own"))
    shared = os.path.join(out, "shared")
    trainer.save_checkpoint(shared, {"rank": rank})
    saved = parameter_values(z)
    trainer.train_minibatch({x: features[8 + rank * 4:12 + rank * 4], y: targets[8 + rank * 4:12 + rank * 4]})
    moved = not np.array_equal(parameter_values(z), saved)
    external = trainer.restore_from_checkpoint(shared)
    save(out, rank, parameter_values(z), written=written, external=external, moved=moved,
         restored=bool(np.array_equal(parameter_values(z), saved)), samples=trainer.total_number_of_samples_seen)
    C.distributed.Communicator.finalize()


def uneven(rank, world, port, out):
    """Rank 0 has three minibatches, rank 1 one: rank 1 trains empty minibatches until both stop together."""
    z, loss, x, y, trainer = data_parallel_worker(rank, world, port)
    features, targets = data(16)
    if rank == 0:
        mine = [(features[i:i + 4], targets[i:i + 4]) for i in range(0, 12, 4)]
    else:
        mine = [(features[12:], targets[12:])]
    calls = 0
    while True:
        batch = mine[calls] if calls < len(mine) else None
        calls += 1
        if not trainer.train_minibatch({x: batch[0], y: batch[1]} if batch else {}):
            break
    save(out, rank, parameter_values(z), calls=calls, samples=trainer.total_number_of_samples_seen)
    C.distributed.Communicator.finalize()


def seed002(rank, world, port, out):
    """Seed 002's cells: the manual loop (one worker alone would do), then the distributed loop and the
    training session with the distributed learner, as two workers."""
    from tests.seeds.seed002_cells import CELL_DISTRIBUTED_LOOP, CELL_MANUAL_LOOP, CELL_TRAINING_SESSION
    join(rank, world, port)
    folder = os.path.join(out, "worker%d" % rank)
    os.makedirs(folder)
    os.chdir(folder)
    C.cntk_py.set_fixed_random_seed(3)
    np.random.seed(3)
    namespace = {}
    totals = []
    for cell in (CELL_MANUAL_LOOP, "import os\ncheckpoint_frequency = 100", CELL_DISTRIBUTED_LOOP,
                 CELL_TRAINING_SESSION):
        exec(compile(cell, "<seed 002 cell>", "exec"), namespace)
        totals.append(namespace["trainer"].total_number_of_samples_seen)
    save(out, rank, parameter_values(namespace["z"]), totals=totals,
         files=sorted(os.listdir(folder)))


def test_totals(rank, world, port, out):
    """Evaluation of a minibatch split unevenly (rank 1 has no data): both get the totals of all workers."""
    z, loss, x, y, trainer = data_parallel_worker(rank, world, port)
    features, targets = data(5)
    mine = {x: features[:3], y: targets[:3]} if rank == 0 else {}
    metric, samples = trainer._distributed_test_minibatch(mine)
    save(out, rank, np.zeros(1), metric=metric, samples=samples)
    C.distributed.Communicator.finalize()


def handed_gradients(rank, world, port, out):
    """Two warm-start minibatches (6 samples: distributed_after=6), then three aggregated ones: for each, what
    the local learner was handed (whether the mapping was vouched exact, and whether each gradient really is a
    contiguous tensor of its parameter's dtype, shape and device, sharing memory with no other), and the
    parameters at the end."""
    from cntk_compat.learners.learner import OwnedGradients, _apart
    join(rank, world, port)
    z, loss, x, y = regression()
    local = sgd(z.parameters)
    handed = []
    update = local.update

    def recording_update(gradient_values, count, is_sweep_end=False):
        grads = [gradient_values[p] for p in local.parameters]
        handed.append({"owned": type(gradient_values) is OwnedGradients,
                       "exact": bool(getattr(gradient_values, "exact", False)),
                       "checks": all(type(g) is torch.Tensor and g.is_contiguous() and not g.requires_grad and
                                     g.dtype == p.tensor.dtype and g.shape == p.tensor.shape and
                                     g.device == p.tensor.device for p, g in zip(local.parameters, grads))
                       and _apart(grads), "count": count})
        return update(gradient_values, count, is_sweep_end)

    local.update = recording_update
    trainer = C.Trainer(z, (loss, loss), [C.distributed.data_parallel_distributed_learner(local,
                                                                                          distributed_after=6)])
    features, targets = data(30)
    for k in range(2):      # the warm start: every worker trains on the whole minibatch
        trainer.train_minibatch({x: features[3 * k:3 * k + 3], y: targets[3 * k:3 * k + 3]})
    for k in range(3):
        part = slice(6 + 6 * k + 3 * rank, 6 + 6 * k + 3 * rank + 3)
        trainer.train_minibatch({x: features[part], y: targets[part]})
    save(out, rank, parameter_values(z), handed=handed, parts=trainer.parameter_learners[0]._ddp_parts)
    C.distributed.Communicator.finalize()


def _ddp_trainer(bits, momentum=True):
    z, loss, x, y = regression()
    learner = C.distributed.data_parallel_distributed_learner(sgd(z.parameters, momentum),
                                                              num_quantization_bits=bits)
    return z, x, y, C.Trainer(z, (loss, loss), [learner])


def _train_parts(trainer, x, y, rank, world, minibatches):
    """Minibatches of 3 samples a worker (the global minibatch: 3 * world), worker r taking the r-th part."""
    features, targets = data(3 * world * 6)
    for k in minibatches:
        part = slice(3 * (world * k + rank), 3 * (world * k + rank) + 3)
        trainer.train_minibatch({x: features[part], y: targets[part]})


def checkpoint_and_continue(rank, world, port, out, bits):
    """Three minibatches, a checkpoint, three more; then three, a checkpoint, a fresh model and Trainer restoring
    it, and the other three: both runs must end with the same parameters (a checkpoint resets the quantization
    residuals, as in CNTK 2.7)."""
    join(rank, world, port)
    z, x, y, trainer = _ddp_trainer(bits)
    _train_parts(trainer, x, y, rank, world, range(3))
    trainer.save_checkpoint(os.path.join(out, "uninterrupted"))
    _train_parts(trainer, x, y, rank, world, range(3, 6))
    uninterrupted = parameter_values(z)
    z, x, y, trainer = _ddp_trainer(bits)
    _train_parts(trainer, x, y, rank, world, range(3))
    trainer.save_checkpoint(os.path.join(out, "checkpoint"))
    z, x, y, trainer = _ddp_trainer(bits)
    trainer.restore_from_checkpoint(os.path.join(out, "checkpoint"))
    _train_parts(trainer, x, y, rank, world, range(3, 6))
    save(out, rank, uninterrupted, resumed=parameter_values(z).tolist(),
         samples=trainer.total_number_of_samples_seen, last_count=trainer.previous_minibatch_sample_count)
    C.distributed.Communicator.finalize()


def write_ctf(path, samples):
    """``samples`` lines of a 3-value input x and a 2-value target y."""
    rng = np.random.RandomState(5)
    with open(path, "w") as f:
        for _ in range(samples):
            values = rng.uniform(-1, 1, 5)
            f.write("|x %s |y %s\n" % (" ".join("%.4f" % v for v in values[:3]),
                                       " ".join("%.4f" % v for v in values[3:])))


def bmuf_session(rank, world, port, out, data_file, max_samples_list, checkpoint_frequency, progress_frequency=None):
    """A training session with a block momentum learner over a CTF file, run once per entry of
    ``max_samples_list`` (each run restoring the previous run's last checkpoint; checkpoint_frequency 0: none).
    With ``progress_frequency`` each worker's ProgressPrinter writes to ``out``/progress<rank>.log."""
    join(rank, world, port)
    C.cntk_py.set_fixed_random_seed(1)
    x = C.input_variable(3, name="x")
    y = C.input_variable(2, name="y")
    z = C.layers.Dense(2, init=C.glorot_uniform(seed=1))(x)
    loss = C.squared_error(z, y)
    totals = []
    for max_samples in max_samples_list:
        learner = C.distributed.block_momentum_distributed_learner(
            C.sgd(z.parameters, C.learning_parameter_schedule(0.05)), block_size=16)
        printers = [C.logging.ProgressPrinter(tag="Training", log_to_file=os.path.join(out, "progress%d.log" % rank))] \
            if progress_frequency else []
        trainer = C.Trainer(z, (loss, loss), [learner], printers)
        streams = C.io.StreamDefs(x=C.io.StreamDef(field="x", shape=3), y=C.io.StreamDef(field="y", shape=2))
        source = C.io.MinibatchSource(C.io.CTFDeserializer(data_file, streams), randomize=False)
        config = C.CheckpointConfig(os.path.join(out, "bmuf"), frequency=checkpoint_frequency, restore=True) \
            if checkpoint_frequency else None
        C.training_session(trainer, source, 8, {x: source.streams.x, y: source.streams.y},
                           max_samples=max_samples, checkpoint_config=config,
                           progress_frequency=progress_frequency).train()
        totals.append(trainer.total_number_of_samples_seen)
    save(out, rank, parameter_values(z), totals=totals)
    C.distributed.Communicator.finalize()


def bmuf_summaries(rank, world, port, out, data_file):
    """A block momentum training session (block never reached) whose progress frequency (7 samples) each worker
    passes by its own count; the summaries (loss text, samples) each worker prints are saved."""
    import io
    import re
    from contextlib import redirect_stdout
    join(rank, world, port)
    streams = C.io.StreamDefs(x=C.io.StreamDef("x", 2), y=C.io.StreamDef("y", 1))
    src = C.io.MinibatchSource(C.io.CTFDeserializer(data_file, streams), randomize=False, max_sweeps=2)
    x, y = C.input_variable(2), C.input_variable(1)
    z = C.layers.Dense(1, init=C.glorot_uniform(seed=1))(x)
    loss = C.squared_error(z, y)
    learner = C.distributed.block_momentum_distributed_learner(
        C.sgd(z.parameters, C.learning_parameter_schedule_per_sample(0.1)), block_size=1000)
    trainer = C.Trainer(z, (loss, loss), learner, [C.logging.ProgressPrinter(tag="T")])
    printed = io.StringIO()
    with redirect_stdout(printed):
        C.training_session(trainer=trainer, mb_source=src, mb_size=3, progress_frequency=7,
                           model_inputs_to_streams={x: src.streams.x, y: src.streams.y}).train()
    summaries = re.findall(r"Finished Epoch\[\d+\]: \[T\] loss = (\S+) \* (\d+),", printed.getvalue())
    save(out, rank, parameter_values(z), summaries=[[loss_text, int(n)] for loss_text, n in summaries],
         total=trainer.total_number_of_samples_seen)
    C.distributed.Communicator.finalize()


def dead_peer(rank, world, port, out):
    """Rank 1 exits after the first minibatch; rank 0's next one must fail at once with an error naming it."""
    _dead_peer_after(1, rank, world, port, out)


def dead_peer_in_backward(rank, world, port, out):
    """Rank 1 exits after three minibatches (DDP runs no collective of its own in the forward pass from the third
    on): rank 0's next one must fail in the gradients' all-reduce, with an error naming it."""
    _dead_peer_after(3, rank, world, port, out)


def _dead_peer_after(minibatches, rank, world, port, out):
    """Both ranks train ``minibatches`` minibatches of 2 samples each, then rank 1 exits and rank 0 records the
    error (and how long it took) of its next minibatch."""
    import time
    z, loss, x, y, trainer = data_parallel_worker(rank, world, port)
    features, targets = data(4 * minibatches + 4)
    for k in range(minibatches):
        rows = slice(4 * k + rank * 2, 4 * k + rank * 2 + 2)
        trainer.train_minibatch({x: features[rows], y: targets[rows]})
    if rank == 1:
        save(out, rank, np.zeros(1))
        os._exit(0)
    start = time.time()
    rows = slice(4 * minibatches, 4 * minibatches + 2)
    try:
        trainer.train_minibatch({x: features[rows], y: targets[rows]})
        error = None
    except Exception as e:      # noqa: BLE001 -- the error is the subject of the test
        error = "%s: %s" % (type(e).__name__, e)
    save(out, rank, np.zeros(1), error=error, seconds=time.time() - start)
    os._exit(0)


def hung_peer(rank, world, port, out):
    """Rank 1 hangs (sleeps) instead of training; rank 0, with a 3 s timeout, must fail instead of waiting."""
    import time
    os.environ["CNTK_DISTRIBUTED_TIMEOUT_S"] = "3"
    z, loss, x, y, trainer = data_parallel_worker(rank, world, port)
    features, targets = data(8)
    if rank == 1:
        C.distributed.Communicator.num_workers()     # joins the process group, then hangs
        time.sleep(20)
        save(out, rank, np.zeros(1))
        os._exit(0)
    start = time.time()
    try:
        trainer.train_minibatch({x: features[:4], y: targets[:4]})
        error = None
    except Exception as e:      # noqa: BLE001 -- what torch.distributed raises is the subject of the test
        error = "%s: %s" % (type(e).__name__, e)
    save(out, rank, np.zeros(1), error=error, seconds=time.time() - start)
    os._exit(0)


def late_finalize(rank, world, port, out):
    """Rank 1 reaches ``Communicator.finalize`` 2 s after rank 0; rank 0 records how long its finalize took."""
    import time
    join(rank, world, port)
    C.distributed.Communicator.num_workers()     # joins the process group
    if rank == 1:
        time.sleep(2)
    start = time.time()
    C.distributed.Communicator.finalize()
    save(out, rank, np.zeros(1), seconds=time.time() - start, workers=C.distributed.Communicator.num_workers())


def finalize_after_training(rank, world, port, out):
    """Trains two minibatches data-parallel, finalizes, then trains one more alone; records whether the gloo
    backend (and so its worker threads) outlived finalize."""
    import weakref
    import torch.distributed as dist
    z, loss, x, y, trainer = data_parallel_worker(rank, world, port)
    features, targets = data(16)
    for start in (0, 8):
        trainer.train_minibatch({x: features[start + rank * 4:start + rank * 4 + 4],
                                 y: targets[start + rank * 4:start + rank * 4 + 4]})
    backend = weakref.ref(dist.group.WORLD._get_backend(torch.device("cpu")))
    C.distributed.Communicator.finalize()
    trainer.train_minibatch({x: features[:4], y: targets[:4]})
    save(out, rank, parameter_values(z), backend_alive=backend() is not None,
         last_count=trainer.previous_minibatch_sample_count)


QUANTIZED_SHAPES = [(12, 3), (2, 3, 5), (3, 1, 1), (7,), ()]


def quantized_columns(rank, world, port, out, runs):
    """Per run (bits, checkpoint): one parameter of each of QUANTIZED_SHAPES, loss sum((p - x)^2) over 5 samples a
    worker of x = normal^3 (a RandomState seeded with 100 + rank), 4 minibatches of per-sample SGD at 0.05 under
    data-parallel SGD quantized to that many bits, with a checkpoint saved after the second one if asked; saves
    the final values of the parameters, flattened, by run ('1', '1 checkpoint', ...)."""
    join(rank, world, port)
    final = {}
    for bits, checkpoint in runs:
        rng = np.random.RandomState(100 + rank)
        xs = [C.input_variable(s) for s in QUANTIZED_SHAPES]
        ps = [C.parameter(s, init=np.random.RandomState(i).uniform(-1, 1, s).astype(np.float32))
              for i, s in enumerate(QUANTIZED_SHAPES)]
        loss = C.reduce_sum(C.square(ps[0] - xs[0]))
        for p, x in zip(ps[1:], xs[1:]):
            loss = loss + C.reduce_sum(C.square(p - x))
        local = C.sgd(ps, C.learning_parameter_schedule_per_sample(0.05))
        learner = C.distributed.data_parallel_distributed_learner(local, num_quantization_bits=bits)
        trainer = C.Trainer(None, (loss, None), [learner])
        for step in range(4):
            trainer.train_minibatch({x: (rng.standard_normal((5,) + s) ** 3).astype(np.float32)
                                     for x, s in zip(xs, QUANTIZED_SHAPES)})
            if checkpoint and step == 1:
                trainer.save_checkpoint(os.path.join(out, "quantized"))
        final["%d%s" % (bits, " checkpoint" if checkpoint else "")] = [p.value.ravel().tolist() for p in ps]
    save(out, rank, np.zeros(0), final=final)
    C.distributed.Communicator.finalize()


def write_classes_ctf(path, samples, seed):
    """``samples`` lines of a 3-value input x and a one-hot 2-class label y (noisy classes of sum(x))."""
    rng = np.random.RandomState(seed)
    with open(path, "w") as f:
        for _ in range(samples):
            v = rng.uniform(-1, 1, 3)
            f.write("|x %s |y %s\n" % (" ".join("%.4f" % a for a in v),
                                       "0 1" if v.sum() + rng.normal() * 0.8 > 0.1 else "1 0"))


def session_evaluations(rank, world, port, out, kinds):
    """For each of ``kinds``, a training session (max 150 samples of minibatch 7, progress every 150) of a 3->2
    softmax model under a block momentum ("bm": blocks of 60 samples) or data-parallel ("dp") learner, cross
    validation every 13 samples on 50 samples in minibatches of 17, and a final test on the same data; saves by
    kind each evaluation's callback arguments and parameters, the Finished Evaluation lines, what
    on_minibatch_end saw last and the final parameters."""
    join(rank, world, port)
    for name, samples, seed in (("train", 200, 1), ("cv", 50, 2)):
        write_classes_ctf(os.path.join(out, "%s%d.ctf" % (name, rank)), samples, seed)
    results = {kind: _evaluated_session(rank, out, kind) for kind in kinds}
    save(out, rank, np.zeros(0), **results)
    C.distributed.Communicator.finalize()


def _evaluated_session(rank, out, kind):
    import io
    from contextlib import redirect_stdout
    from cntk_compat.train.training_session import TrainingSession

    def source(name, sweeps):
        streams = C.io.StreamDefs(x=C.io.StreamDef(field="x", shape=3), y=C.io.StreamDef(field="y", shape=2))
        return C.io.MinibatchSource(C.io.CTFDeserializer(os.path.join(out, "%s%d.ctf" % (name, rank)), streams),
                                    randomize=False, max_sweeps=sweeps)

    x, y = C.input_variable(3), C.input_variable(2)
    W = C.parameter((3, 2), init=np.array([[0.1, -0.2], [0.3, 0.1], [-0.1, 0.2]], np.float32))
    z = C.times(x, W)
    local = C.sgd([W], C.learning_parameter_schedule_per_sample(0.1))
    learner = C.distributed.block_momentum_distributed_learner(local, block_size=60) if kind == "bm" else \
        C.distributed.data_parallel_distributed_learner(local)
    trainer = C.Trainer(z, (C.cross_entropy_with_softmax(z, y), C.classification_error(z, y)), [learner],
                        [C.logging.ProgressPrinter(tag="Training", rank=rank)])
    train, cv, test = source("train", C.io.INFINITELY_REPEAT), source("cv", 1), source("cv", 1)
    evaluations, last = [], []

    def cross_validated(index, average_error, samples, minibatches):
        evaluations.append([index, trainer.total_number_of_samples_seen, round(average_error, 6), samples,
                            minibatches, [round(float(v), 5) for v in W.value.ravel()]])
        return True

    class Session(TrainingSession):
        def on_minibatch_end(self):
            last[:] = [trainer.previous_minibatch_sample_count, trainer.total_number_of_samples_seen]
            return True

    printed = io.StringIO()
    with redirect_stdout(printed):
        Session(trainer, train, 7, {x: train.streams.x, y: train.streams.y}, 150, 150, C.CheckpointConfig(None),
                C.CrossValidationConfig(cv, minibatch_size=17, frequency=13, callback=cross_validated,
                                        model_inputs_to_streams={x: cv.streams.x, y: cv.streams.y}),
                C.TestConfig(test, minibatch_size=17, model_inputs_to_streams={x: test.streams.x, y: test.streams.y})
                ).train()
    lines = [line for line in printed.getvalue().splitlines() if line.startswith("Finished Evaluation")]
    return {"evaluations": evaluations, "evaluation_lines": lines, "last": last,
            "parameters": W.value.ravel().tolist()}
