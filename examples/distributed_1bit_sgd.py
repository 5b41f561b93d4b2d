"""Data-parallel training under torchrun: 1-bit SGD (default), other quantizations (--bits 2..32), or block
momentum (--block-size N). Digits in CTF, an MLP, training_session with per-worker partitions,
a rank-0 checkpoint and a distributed test.

    torchrun --nproc_per_node=2 examples/distributed_1bit_sgd.py [--quick] [--bits 1] [--block-size 0]
"""
import argparse
import os

import cntk as C
from cntk.layers import Dense, Sequential
from cntk.train.distributed import (Communicator, block_momentum_distributed_learner,
                                    data_parallel_distributed_learner)
from cntk.train.training_session import CheckpointConfig, TestConfig, training_session

import _synthetic



def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=os.path.join("example_output", "distributed_1bit_sgd"))
    parser.add_argument("--bits", type=int, default=1, help="gradient quantization bits (32: none)")
    parser.add_argument("--block-size", type=int, default=0, help="block momentum with this many samples")
    parser.add_argument("--warm-up", type=int, default=0, help="samples trained before distributing")
    args = parser.parse_args()
    C.cntk_py.set_fixed_random_seed(1)
    rank = Communicator.rank()
    folder = os.path.join(args.out, "rank%d" % rank)    # each worker writes its own copy of the same data
    os.makedirs(folder, exist_ok=True)
    train_count = 2000 if args.quick else 20000
    train, test = _synthetic.mnist_files(folder, train_count, names=("train.ctf", "test.ctf"))

    features, labels = C.input_variable(784), C.input_variable(10)
    z = Sequential([Dense(200, activation=C.relu), Dense(10)])(features / 255.0)
    loss, error = C.cross_entropy_with_softmax(z, labels), C.classification_error(z, labels)
    local = C.momentum_sgd(z.parameters, C.learning_parameter_schedule_per_sample(0.005), C.momentum_schedule(0.9))
    if args.block_size:
        learner = block_momentum_distributed_learner(local, block_size=args.block_size,
                                                     distributed_after=args.warm_up)
    else:
        learner = data_parallel_distributed_learner(local, num_quantization_bits=args.bits,
                                                    distributed_after=args.warm_up)
    epochs = 2 if args.quick else 10
    printer = C.logging.ProgressPrinter(tag="Training", num_epochs=epochs, rank=rank)
    trainer = C.Trainer(z, (loss, error), [learner], [printer] if rank == 0 else [])

    reader = _synthetic.mnist_reader(train, True)
    training_session(
        trainer=trainer, mb_source=reader, mb_size=64,
        model_inputs_to_streams={features: reader.streams.features, labels: reader.streams.labels},
        max_samples=train_count * epochs, progress_frequency=train_count,
        checkpoint_config=CheckpointConfig(os.path.join(args.out, "model.checkpoint"), restore=False),
        test_config=TestConfig(_synthetic.mnist_reader(test, False), minibatch_size=250),
    ).train()
    if rank == 0:
        print("%d workers; %s; %d samples in all" % (
            Communicator.num_workers(),
            "block momentum, blocks of %d samples" % args.block_size if args.block_size
            else "%d-bit gradients" % args.bits, trainer.total_number_of_samples_seen))
    Communicator.finalize()


if __name__ == "__main__":
    main()
