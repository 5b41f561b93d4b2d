"""Worker body for test_empty_worker_metric.py (spawned processes import it by name)."""
import os

import numpy as np

import cntk as C

from tests.distributed._workers import join, save


def metric_with_an_empty_worker(rank, world, port, out):
    """Two data-parallel workers with a metric; in the 2nd and 3rd minibatches one worker has no data. Saves
    what each worker's Trainer reports after the last minibatch and in its training summary."""
    join(rank, world, port)
    x = C.input_variable(4)
    y = C.input_variable(3)
    z = C.layers.Dense(3, init=C.initializer.glorot_uniform(seed=1))(x)
    log = os.path.join(out, "progress%d.log" % rank)
    learner = C.train.distributed.data_parallel_distributed_learner(
        C.sgd(z.parameters, C.learning_rate_schedule(0.5, C.UnitType.minibatch)))
    trainer = C.Trainer(z, (C.cross_entropy_with_softmax(z, y), C.classification_error(z, y)), learner,
                        [C.logging.ProgressPrinter(tag="Training", log_to_file=log)])
    rng = np.random.RandomState(7)
    X = rng.randn(6, 4).astype(np.float32)
    Y = np.eye(3, dtype=np.float32)[[0, 1, 2, 0, 1, 2]]
    trainer.train_minibatch({x: X[2 * rank:2 * rank + 2], y: Y[2 * rank:2 * rank + 2]})
    trainer.train_minibatch({x: X[4:5], y: Y[4:5]} if rank == 0 else {})
    trainer.train_minibatch({x: X[5:6], y: Y[5:6]} if rank == 1 else {})
    last = [trainer.previous_minibatch_sample_count, trainer.previous_minibatch_loss_average,
            trainer.previous_minibatch_evaluation_average]
    trainer.summarize_training_progress()
    with open(log) as f:
        summary = [line.strip() for line in f if line.startswith("Finished Epoch")]
    save(out, rank, z.parameters[0].value, last=last, summary=summary)
    C.distributed.Communicator.finalize()
