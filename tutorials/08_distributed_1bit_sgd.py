"""Tutorial 8: data-parallel training on several workers with 1-bit SGD.

With data parallelism every worker holds the whole model, reads its own share of the data, computes
gradients on it, and the workers add their gradients up before each update, so together they train like
one worker with a minibatch as large as all of theirs. CNTK ran the workers under MPI (mpiexec -n 2 python
script.py); cntk-compat runs them under PyTorch's launcher:

    torchrun --nproc_per_node=2 tutorials/08_distributed_1bit_sgd.py            (two workers, one machine)
    torchrun --nproc_per_node=2 tutorials/08_distributed_1bit_sgd.py --quick    (what the tests run)
    python tutorials/08_distributed_1bit_sgd.py                                 (one worker: same script)

1-bit SGD shrinks the gradient exchange 32-fold: each worker sends only the sign of each gradient value (and
two averages per column to rebuild it), keeps what that rounding lost, and adds it to its next gradient
("error feedback"), so nothing is lost for good. Training starts with full-precision exchange for a warm-up
(distributed_after) while the weights move fast.

New here: cntk.train.distributed (Communicator, data_parallel_distributed_learner with
num_quantization_bits=1), training_session (the loop CNTK's distributed examples use: it partitions the
reader across workers, checkpoints on rank 0, and tests at the end), and ProgressPrinter's rank (only the
main worker prints).
"""
import argparse
import os

import numpy as np

import cntk as C
from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs, INFINITELY_REPEAT
from cntk.layers import Dense, Sequential
from cntk.logging import ProgressPrinter
from cntk.train.distributed import Communicator, data_parallel_distributed_learner
from cntk.train.training_session import CheckpointConfig, TestConfig, training_session

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--quick", action="store_true", help="a short run (for tests)")
parser.add_argument("--out", default=os.path.join("tutorial_output", "08_distributed_1bit_sgd"))
args = parser.parse_args()
C.cntk_py.set_fixed_random_seed(1)     # the same initial weights on every worker

rank, workers = Communicator.rank(), Communicator.num_workers()
print("worker %d of %d" % (rank, workers))

# --- 1. Data -----------------------------------------------------------------------------------------------
# Five classes of points in 20 dimensions. Every worker writes the same file (same seed) under its own
# name; the reader then gives each worker a different part of it.
num_features, num_classes = 20, 5


def write_data(path, count, seed):
    rng = np.random.RandomState(seed)
    centres = np.random.RandomState(0).randn(num_classes, num_features) * 0.5
    labels = rng.randint(num_classes, size=count)
    points = centres[labels] + rng.randn(count, num_features)
    with open(path, "w") as f:
        for point, label in zip(points, labels):
            f.write("|features %s |labels %d:1\n" % (" ".join("%.4f" % v for v in point), label))
    return path


os.makedirs(args.out, exist_ok=True)
train_count = 6000 if args.quick else 60000
train_file = write_data(os.path.join(args.out, "train.rank%d.ctf" % rank), train_count, seed=1)
test_file = write_data(os.path.join(args.out, "test.rank%d.ctf" % rank), 1000, seed=2)


def create_source(path, is_training):
    streams = StreamDefs(features=StreamDef(field="features", shape=num_features),
                         labels=StreamDef(field="labels", shape=num_classes, is_sparse=True))
    return MinibatchSource(CTFDeserializer(path, streams), randomize=is_training,
                           max_sweeps=INFINITELY_REPEAT if is_training else 1)


# --- 2. Model and the distributed learner ------------------------------------------------------------------
features = C.input_variable(num_features)
labels = C.input_variable(num_classes, is_sparse=True)
z = Sequential([Dense(64, activation=C.relu), Dense(num_classes)])(features)
loss = C.cross_entropy_with_softmax(z, labels)
error = C.classification_error(z, labels)

# The local learner is what a single worker would use; the distributed learner wraps it. The minibatch
# size (and so the learning rate per minibatch) is the global one: all workers' samples together.
local_learner = C.momentum_sgd(z.parameters, lr=C.learning_parameter_schedule_per_sample(0.01),
                               momentum=C.momentum_schedule(0.9))
warm_up = 1000
learner = data_parallel_distributed_learner(local_learner, num_quantization_bits=1, distributed_after=warm_up)

# Every worker's Trainer reports the totals of all workers, so CNTK's logs printed each line once per
# worker; here only the main worker (rank 0) gets a printer.
printers = [ProgressPrinter(freq=0 if args.quick else 20, tag="Training", rank=rank)] if rank == 0 else []
trainer = C.Trainer(z, (loss, error), [learner], printers)

# --- 3. The training session -------------------------------------------------------------------------------
# max_samples counts all workers' samples; the checkpoint is written by rank 0 only, and the test at the
# end reports the metric over all workers' parts of the test file. During the warm-up every worker reads
# the whole data; when it ends they switch to their own parts (cntk-compat warns that the partitioning
# changed in the middle of a sweep and starts the next sweep). CheckpointConfig restores by default: run the
# script again with the same --out and it resumes from the checkpoint (here: finds training already done).
train_source = create_source(train_file, True)
training_session(
    trainer=trainer, mb_source=train_source, mb_size=128,
    model_inputs_to_streams={features: train_source.streams.features, labels: train_source.streams.labels},
    max_samples=train_count, progress_frequency=train_count,
    checkpoint_config=CheckpointConfig(os.path.join(args.out, "model.checkpoint"), frequency=train_count),
    test_config=TestConfig(create_source(test_file, False), minibatch_size=256),
).train()

if rank == 0:
    print("samples seen by all workers together:", trainer.total_number_of_samples_seen)
    print("checkpoint:", sorted(f for f in os.listdir(args.out) if f.startswith("model.checkpoint")))
Communicator.finalize()     # every worker must call it before it exits
