"""Worker body for test_bmuf_end_of_data.py (spawned processes import it by name)."""
import os

import numpy as np

import cntk as C
from tests.distributed._workers import join, save


def _parameters(z):
    return np.concatenate([p.value.ravel() for p in sorted(z.parameters, key=lambda p: p.name)]).astype(np.float64)


def train_then_empty(rank, world, port, out, cases):
    """For each (name, settings) in ``cases``: a Dense(2) model on 3 inputs from fixed values, trained by a Trainer
    with a block momentum learner on this worker's minibatches, then ``ckpt`` checkpoints and ``empty`` (3) empty
    minibatches. Records the
    parameters and the Trainer's answer after each call, and the total sample count."""
    join(rank, world, port)
    results = {}
    for name, cfg in cases:
        x = C.input_variable(3)
        y = C.input_variable(2)
        z = C.layers.Dense(2, init=0.0)(x)
        for p in z.parameters:
            p.value = (np.arange(p.value.size, dtype=np.float32).reshape(p.shape) * 0.1 - 0.2).astype(np.float32)
        loss = C.squared_error(z, y)
        if cfg.get("local", "sgd") == "sgd":
            local = C.sgd(z.parameters, C.learning_parameter_schedule(0.05))
        else:
            local = C.momentum_sgd(z.parameters, C.learning_parameter_schedule(0.05), C.momentum_schedule(0.9))
        kwargs = dict(block_size=cfg.get("block", 16), use_nestrov_momentum=cfg.get("nesterov", True),
                      block_learning_rate=cfg.get("blr", 1.0), distributed_after=cfg.get("after", 0))
        if "tc" in cfg:
            kwargs["block_momentum_as_time_constant"] = cfg["tc"]
        trainer = C.Trainer(z, (loss, loss), [C.distributed.block_momentum_distributed_learner(local, **kwargs)])
        rng = np.random.RandomState(7 + rank)
        counts = cfg.get("counts", [4, 4])
        rows = []
        for k in range(counts[rank]):
            n = cfg["lastmb"][rank] if cfg.get("lastmb") and k == counts[rank] - 1 else cfg.get("mb", 4)
            X = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
            Y = rng.uniform(-1, 1, (n, 2)).astype(np.float32)
            rows.append(["mb%d" % k, trainer.train_minibatch({x: X, y: Y}), _parameters(z).tolist()])
        for k in range(cfg.get("ckpt", 0)):
            trainer.save_checkpoint(os.path.join(out, "%s_%d_%d" % (name, rank, k)))
            rows.append(["ckpt%d" % k, None, _parameters(z).tolist()])
        for k in range(cfg.get("empty", 3)):
            rows.append(["empty%d" % k, trainer.train_minibatch({}), _parameters(z).tolist()])
        results[name] = dict(rows=rows, seen=trainer.total_number_of_samples_seen)
    save(out, rank, np.zeros(1), results=results)
    C.distributed.Communicator.finalize()
