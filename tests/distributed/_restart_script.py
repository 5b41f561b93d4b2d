"""Run by torchrun (tests/distributed/test_restart.py): a data-parallel training session over a CTF file with
checkpoints. With KILL_AFTER set, rank 1 of the first attempt kills itself (SIGKILL) after that many minibatches;
torchrun --max-restarts then restarts all workers, which resume from the last checkpoint."""
import json
import os
import signal
import sys

import numpy as np
import torch

import cntk as C

out, data_file = sys.argv[1], sys.argv[2]
torch.set_num_threads(1)
x = C.input_variable(3, name="x")
y = C.input_variable(2, name="y")
z = C.layers.Dense(2, init=C.glorot_uniform(seed=1))(x)
loss = C.squared_error(z, y)
learner = C.distributed.data_parallel_distributed_learner(
    C.momentum_sgd(z.parameters, C.learning_parameter_schedule(0.05), C.momentum_schedule(0.9)))
trainer = C.Trainer(z, (loss, loss), [learner])
rank = C.distributed.Communicator.rank()
kill_after = int(os.environ.get("KILL_AFTER", "0"))
if kill_after and rank == 1 and os.environ.get("TORCHELASTIC_RESTART_COUNT", "0") == "0":
    train_minibatch = trainer.train_minibatch
    calls = [0]

    def train_then_die(*args, **kwargs):
        calls[0] += 1
        if calls[0] > kill_after:
            os.kill(os.getpid(), signal.SIGKILL)
        return train_minibatch(*args, **kwargs)

    trainer.train_minibatch = train_then_die
streams = C.io.StreamDefs(x=C.io.StreamDef(field="x", shape=3), y=C.io.StreamDef(field="y", shape=2))
source = C.io.MinibatchSource(C.io.CTFDeserializer(data_file, streams), randomize=False)
C.training_session(trainer, source, 8, {x: source.streams.x, y: source.streams.y}, max_samples=96,
                   checkpoint_config=C.CheckpointConfig(os.path.join(out, "model"), frequency=16,
                                                        restore=True)).train()
values = np.concatenate([p.value.ravel() for p in sorted(z.parameters, key=lambda p: p.name)])
with open(os.path.join(out, "rank%d.json" % rank), "w") as f:
    json.dump({"parameters": values.tolist(), "samples": trainer.total_number_of_samples_seen,
               "attempt": os.environ.get("TORCHELASTIC_RESTART_COUNT")}, f)
C.distributed.Communicator.finalize()    # then a normal interpreter shutdown, as a user's script ends
