"""Distributed data parallel: traffic and step time of the gradient hooks, and of the CNTK Trainer on DDP.

Usage: python benchmarks/bench_distributed.py [--workers 2 4] [--steps 8] [--reps 3]

Spawns its own gloo workers on the CPU (as torchrun would) for each worker count. For a 784-512-512-10 MLP, a
2-layer LSTM (input 128, hidden 256, 20 steps) and a small ConvNet (3x3 convolutions 3->32->64, each followed by 2x2
max pooling, and a linear layer to 10 classes, on 32x32 images: its kernels are columns of 3 values) wrapped in
torch's DistributedDataParallel with the summing hooks of ``cntk_compat.distributed.hooks`` (32 bits:
``allreduce_sum_hook``; 1 and 4 bits: ``quantized_gradient_hook``) it counts the bytes each worker sends and receives per step, from the tensors handed to the collectives:

* ``all_reduce`` of B bytes: 2 (N - 1) / N * B sent and received (a bandwidth-optimal ring all-reduce),
* ``all_to_all_single``: the parts sent to / received from the other workers,
* ``all_gather_single`` of B bytes a worker: (N - 1) * B sent and received,

and the step time (median of ``--reps`` alternating repetitions of ``--steps`` steps; wall and process CPU time).

The CNTK Trainer (``data_parallel_distributed_learner`` over sgd, 32 bits) on the same MLP is timed against a
hand-written torch DDP loop in the same workers: DDP's default all-reduce, ``torch.optim.SGD``, zero_grad with
``set_to_none``, on the same data (the numpy features and one-hot labels the CNTK script feeds, converted with
``torch.from_numpy`` each step), the same loss (softmax cross entropy summed over the samples) and the same update
(the Trainer's learning rate 1e-3 applies to the mean gradient of the global minibatch of N·b samples; DDP averages
the workers' summed gradients, a sum over N·b samples divided by N, so the loop's learning rate is 1e-3 / b). The two
alternate in blocks of ``--steps`` steps, ``--trainer-reps`` times (each first every other time). Reported: the
median over the workers of each one's median step time, and the paired ratios (each block of the Trainer over
the adjacent block of the loop; median and quartiles over all blocks of all workers), wall and process CPU time
(all threads: the gloo threads too). ``--trainer-only`` skips the hooks.

With more workers than cores the workers share cores, and wall times then measure the scheduler more than the
step: on a 2-core machine the 2-worker figure is the one to quote.
"""
import argparse
import json
import os
import socket
import statistics
import sys
import tempfile
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

LOCAL_BATCH = 32


class _Traffic(object):
    """Counts the bytes of the collectives the hooks call (wraps torch.distributed's functions)."""

    def __init__(self):
        self.sent = self.received = 0
        self._originals = {}

    def install(self):
        for name in ("all_reduce", "all_to_all_single", "all_gather_single"):
            self._originals[name] = getattr(dist, name)
            setattr(dist, name, getattr(self, "_" + name))

    def reset(self):
        self.sent = self.received = 0

    def _all_reduce(self, tensor, *args, **kwargs):
        n = dist.get_world_size()
        size = tensor.numel() * tensor.element_size() * 2 * (n - 1) / n
        self.sent += size
        self.received += size
        return self._originals["all_reduce"](tensor, *args, **kwargs)

    def _all_to_all_single(self, output, input, output_split_sizes=None, input_split_sizes=None, *args, **kwargs):
        rank, n = dist.get_rank(), dist.get_world_size()
        ins = input_split_sizes or [input.numel() // n] * n
        outs = output_split_sizes or [output.numel() // n] * n
        self.sent += (sum(ins) - ins[rank]) * input.element_size()
        self.received += (sum(outs) - outs[rank]) * output.element_size()
        return self._originals["all_to_all_single"](output, input, output_split_sizes, input_split_sizes, *args,
                                                    **kwargs)

    def _all_gather_single(self, output, input, *args, **kwargs):
        size = (dist.get_world_size() - 1) * input.numel() * input.element_size()
        self.sent += size
        self.received += size
        return self._originals["all_gather_single"](output, input, *args, **kwargs)


def _mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                               torch.nn.ReLU(), torch.nn.Linear(512, 10))


def _convnet():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                               torch.nn.Conv2d(32, 64, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                               torch.nn.Flatten(), torch.nn.Linear(64 * 8 * 8, 10))


class _LSTM(torch.nn.Module):
    def __init__(self):
        super(_LSTM, self).__init__()
        torch.manual_seed(0)
        self.lstm = torch.nn.LSTM(128, 256, num_layers=2, batch_first=True)
        self.out = torch.nn.Linear(256, 10)

    def forward(self, x):
        return self.out(self.lstm(x)[0][:, -1])


MODELS = {"mlp": _mlp, "lstm": _LSTM, "convnet": _convnet}


def _batch(model_name, rank):
    g = torch.Generator().manual_seed(rank)
    if model_name == "mlp":
        return torch.randn(LOCAL_BATCH, 784, generator=g), torch.randint(0, 10, (LOCAL_BATCH,), generator=g)
    if model_name == "convnet":
        return torch.randn(LOCAL_BATCH, 3, 32, 32, generator=g), torch.randint(0, 10, (LOCAL_BATCH,), generator=g)
    return torch.randn(LOCAL_BATCH, 20, 128, generator=g), torch.randint(0, 10, (LOCAL_BATCH,), generator=g)


def _hooked(model_name, bits):
    from torch.nn.parallel import DistributedDataParallel

    from cntk_compat.distributed import hooks
    ddp = DistributedDataParallel(MODELS[model_name]())
    if bits == 32:
        ddp.register_comm_hook(hooks.SumState(), hooks.allreduce_sum_hook)
    else:
        ddp.register_comm_hook(hooks.QuantizedGradientState(bits, module=ddp.module), hooks.quantized_gradient_hook)
    return ddp, torch.optim.SGD(ddp.parameters(), lr=1e-3)


def _torch_step(ddp, optimizer, x, y):
    optimizer.zero_grad()
    torch.nn.functional.cross_entropy(ddp(x), y, reduction="sum").backward()
    optimizer.step()


def _cntk_mlp():
    import cntk as C
    features = C.input_variable(784)
    labels = C.input_variable(10)
    z = C.layers.Sequential([C.layers.Dense(512, activation=C.relu), C.layers.Dense(512, activation=C.relu),
                             C.layers.Dense(10)])(features)
    loss = C.cross_entropy_with_softmax(z, labels)
    learner = C.distributed.data_parallel_distributed_learner(
        C.sgd(z.parameters, C.learning_parameter_schedule(1e-3)))
    return features, labels, C.Trainer(z, (loss, None), [learner])


def _timed(step, steps):
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        step()
    return (time.perf_counter() - wall) / steps, (time.process_time() - cpu) / steps


def _plain_step(ddp, optimizer, feed):
    """The hand-written loop's step on the CNTK script's data: numpy features and one-hot labels, the same
    loss (softmax cross entropy summed over the samples)."""
    features, labels = feed
    optimizer.zero_grad(set_to_none=True)
    out = ddp(torch.from_numpy(features))
    torch.nn.functional.cross_entropy(out, torch.from_numpy(labels), reduction="sum").backward()
    optimizer.step()


def worker(rank, world, port, out, steps, reps, trainer_reps, hooks):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE=str(world), RANK=str(rank),
                      LOCAL_RANK=str(rank))
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    traffic = _Traffic()
    traffic.install()
    results = {}
    for model_name in MODELS if hooks else ():
        x, y = _batch(model_name, rank)
        for bits in (32, 1, 4):
            ddp, optimizer = _hooked(model_name, bits)
            _torch_step(ddp, optimizer, x, y)       # DDP re-buckets after the first step
            traffic.reset()
            times = [_timed(lambda: _torch_step(ddp, optimizer, x, y), steps) for _ in range(reps)]
            print("rank %d: %s %d-bit done" % (rank, model_name, bits), file=sys.stderr, flush=True)
            results["%s %d-bit" % (model_name, bits)] = {
                "sent": traffic.sent / (steps * reps), "received": traffic.received / (steps * reps),
                "wall": statistics.median(t[0] for t in times), "cpu": statistics.median(t[1] for t in times)}
    # the CNTK Trainer on DDP against a hand-written DDP loop, alternating
    from torch.nn.parallel import DistributedDataParallel
    features, labels, trainer = _cntk_mlp()
    x, y = _batch("mlp", rank)
    feed = {features: x.numpy(), labels: np.eye(10, dtype=np.float32)[y.numpy()]}
    arrays = (feed[features], feed[labels])
    plain = DistributedDataParallel(_mlp())
    plain_optimizer = torch.optim.SGD(plain.parameters(), lr=1e-3 / x.shape[0])   # the Trainer's update (docstring)
    for _ in range(3):
        trainer.train_minibatch(feed)
        _plain_step(plain, plain_optimizer, arrays)
    ours, theirs = [], []
    for rep in range(trainer_reps):       # alternating, each first every other time
        runs = [(ours, lambda: trainer.train_minibatch(feed)), (theirs, lambda: _plain_step(plain, plain_optimizer,
                                                                                             arrays))]
        for times, step in runs if rep % 2 == 0 else runs[::-1]:
            times.append(_timed(step, steps))
    results["cntk trainer"] = {"wall": statistics.median(t[0] for t in ours),
                               "cpu": statistics.median(t[1] for t in ours)}
    results["torch loop"] = {"wall": statistics.median(t[0] for t in theirs),
                             "cpu": statistics.median(t[1] for t in theirs)}
    results["paired"] = {"wall": [a[0] / b[0] for a, b in zip(ours, theirs)],
                         "cpu": [a[1] / b[1] for a, b in zip(ours, theirs)]}
    with open(os.path.join(out, "rank%d.json" % rank), "w") as f:
        json.dump(results, f)
    dist.barrier()      # no worker closes its connections while a peer's last collective still uses them
    dist.destroy_process_group()
    # The workers end here, without the interpreter's shutdown. DDP keeps the process group alive past
    # destroy_process_group, so its gloo threads are not joined, and a gloo thread frees a finished collective's
    # work object (which holds a Python object) after the work has completed: one that comes to it only while the
    # interpreter shuts down cannot take the GIL and exits the thread, which aborts the process (SIGABRT,
    # "terminate called without an active exception"; seen in about 1 run in 20 on a loaded machine).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(world, steps, reps, trainer_reps, hooks):
    with tempfile.TemporaryDirectory(prefix="bench_distributed_") as out:
        mp.start_processes(worker, args=(world, _free_port(), out, steps, reps, trainer_reps, hooks), nprocs=world,
                           start_method="spawn")
        ranks = []
        for rank in range(world):
            with open(os.path.join(out, "rank%d.json" % rank)) as f:
                ranks.append(json.load(f))
    return ranks


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--trainer-reps", type=int, default=21, help="repetitions of the Trainer vs DDP loop timing")
    parser.add_argument("--trainer-only", action="store_true", help="only time the Trainer against the DDP loop")
    args = parser.parse_args()
    by_world = {world: run(world, args.steps, args.reps, args.trainer_reps, not args.trainer_only)
                for world in args.workers}
    if not args.trainer_only:
        _traffic_table(by_world)
    for world, ranks in by_world.items():
        ours = statistics.median(r["cntk trainer"]["wall"] for r in ranks)
        theirs = statistics.median(r["torch loop"]["wall"] for r in ranks)
        ours_cpu = statistics.median(r["cntk trainer"]["cpu"] for r in ranks)
        theirs_cpu = statistics.median(r["torch loop"]["cpu"] for r in ranks)
        print("MLP step, %d workers: CNTK Trainer on DDP %.2f ms (cpu %.2f), hand-written DDP loop %.2f ms (cpu %.2f)"
              % (world, 1e3 * ours, 1e3 * ours_cpu, 1e3 * theirs, 1e3 * theirs_cpu))
        paired = {kind: sorted(x for r in ranks for x in r["paired"][kind]) for kind in ("wall", "cpu")}
        quartiles = {kind: statistics.quantiles(v, n=4) for kind, v in paired.items()}
        print("  paired ratios over %d blocks of %d steps: wall median %.3f (quartiles %.3f-%.3f), cpu median %.3f "
              "(quartiles %.3f-%.3f)" % (len(paired["wall"]), args.steps, quartiles["wall"][1], quartiles["wall"][0],
                                          quartiles["wall"][2], quartiles["cpu"][1], quartiles["cpu"][0],
                                          quartiles["cpu"][2]))
        print("DDP 32-bit step time ratio (CNTK Trainer / hand-written DDP loop), %d workers: wall %.3f, cpu %.3f%s"
              % (world, ours / theirs, ours_cpu / theirs_cpu,
                 "" if world <= (os.cpu_count() or 1) else " (%d workers on %d cores: oversubscribed)"
                 % (world, os.cpu_count())))


def _traffic_table(by_world):
    """Prints the bytes and step times of the hooks, and how the received bytes grow with the workers."""

    def mean(ranks, key, field):
        return statistics.mean(r[key][field] for r in ranks)

    print("bytes per worker per step (mean over the workers; max received: the busiest worker) and step time "
          "(median over the workers of each one's median)")
    print("%-14s %7s %12s %12s %12s %10s %9s %9s" % ("config", "workers", "sent", "received", "max received",
                                                      "vs 32-bit", "wall ms", "cpu ms"))
    for model_name in MODELS:
        for bits in (32, 1, 4):
            key = "%s %d-bit" % (model_name, bits)
            for world, ranks in by_world.items():
                full = mean(ranks, "%s 32-bit" % model_name, "sent")
                print("%-14s %7d %12d %12d %12d %10s %9.2f %9.2f" % (
                    key, world, mean(ranks, key, "sent"), mean(ranks, key, "received"),
                    max(r[key]["received"] for r in ranks), "1/%.1f" % (full / mean(ranks, key, "sent")),
                    1e3 * statistics.median(x[key]["wall"] for x in ranks),
                    1e3 * statistics.median(x[key]["cpu"] for x in ranks)))
    worlds = sorted(by_world)
    if len(worlds) > 1:
        first, last = by_world[worlds[0]], by_world[worlds[-1]]
        ring = (2.0 * (worlds[-1] - 1) / worlds[-1]) / (2.0 * (worlds[0] - 1) / worlds[0])
        for model_name in MODELS:
            for bits in (32, 1, 4):
                key = "%s %d-bit" % (model_name, bits)
                print("%s received bytes %d->%d workers: x%.4f (mean), x%.4f (busiest worker); ring all-reduce: "
                      "x%.4f" % (key, worlds[0], worlds[-1], mean(last, key, "received") / mean(first, key, "received"),
                                 max(r[key]["received"] for r in last) / max(r[key]["received"] for r in first),
                                 ring))
    one_bit = max(mean(by_world[w], "%s 1-bit" % m, "sent") / mean(by_world[w], "%s 32-bit" % m, "sent")
                  for w in worlds for m in MODELS)
    print("1-bit bytes / 32-bit bytes (worst case): 1/%.2f" % (1 / one_bit))


if __name__ == "__main__":
    sys.exit(main())
