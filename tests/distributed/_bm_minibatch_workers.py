"""Worker body for test_block_momentum_minibatches.py (spawned processes import it by name)."""
import cntk as C
from cntk.train.training_session import CheckpointConfig, CrossValidationConfig, TestConfig, TrainingSession

from tests.distributed._workers import join, save


class _CountingSession(TrainingSession):
    def __init__(self, *args, **kwargs):
        super(_CountingSession, self).__init__(*args, **kwargs)
        self.counted_trainer = args[0]          # (CNTK's TrainingSession keeps no Python attribute for it)
        self.counts = []

    def on_minibatch_end(self):
        self.counts.append(self.counted_trainer.previous_minibatch_sample_count)
        return True         # CNTK's native caller wants a bool


def bm_minibatches(rank, world, port, out, data_file, max_samples_list):
    """training_session with a block momentum learner (block 16, minibatch 8) over a CTF file, run once per
    entry of max_samples_list; saves each run's per-minibatch sample counts and totals."""
    join(rank, world, port)
    x = C.input_variable(3, name="x")
    y = C.input_variable(2, name="y")
    z = C.layers.Dense(2, init=C.glorot_uniform(seed=1))(x)
    loss = C.squared_error(z, y)
    counts, totals = [], []
    for max_samples in max_samples_list:
        learner = C.distributed.block_momentum_distributed_learner(
            C.sgd(z.parameters, C.learning_rate_schedule(0.01, C.UnitType.sample)), block_size=16)
        trainer = C.Trainer(z, (loss, loss), [learner])
        streams = C.io.StreamDefs(x=C.io.StreamDef(field="x", shape=3), y=C.io.StreamDef(field="y", shape=2))
        source = C.io.MinibatchSource(C.io.CTFDeserializer(data_file, streams), randomize=False)
        session = _CountingSession(trainer, source, 8, {x: source.streams.x, y: source.streams.y}, max_samples,
                                   None, CheckpointConfig(None), CrossValidationConfig(None), TestConfig(None))
        session.train()
        counts.append([c for c in session.counts if c])
        totals.append(trainer.total_number_of_samples_seen)
    save(out, rank, [p.value for p in z.parameters][0], counts=counts, totals=totals)
    C.distributed.Communicator.finalize()
