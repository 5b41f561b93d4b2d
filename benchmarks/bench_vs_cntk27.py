"""The same CNTK script under cntk-compat and under real CNTK 2.7: an LSTM classifier's training step and a
one-sample eval.

Workloads (plain CNTK API, runs under Python 3.6 as well):
- lstm: Embedding(64) -> Recurrence(LSTM(128)) -> sequence.last -> Dense(10) on one-hot sparse word sequences
  (vocabulary 300), lengths 5..60, batch 32, sgd (CNTK 2.7's CPU build has no Adam for the sparse gradient
  an Embedding of sparse input gets), one trainer.train_minibatch per step;
- lstm dense: Recurrence(LSTM(128)) -> sequence.last -> Dense(10) on dense 64-dim feature sequences, adam;
- eval: one-sample model.eval({x: s}) of a 784-256-256-10 relu net.

Without arguments it times the ``cntk`` it imports and prints one line of figures. With ``--oracle PYTHON`` it
runs itself under that interpreter too (CNTK 2.7: ../shared/cntk27/setup prints its path; run from a folder
without a ``cntk`` package, PYTHONPATH unset), alternating the two processes, and prints the ratios
cntk-compat / CNTK 2.7 of the medians (process CPU time and wall time).

Usage: python benchmarks/bench_vs_cntk27.py [--oracle /root/.cache/cntk27/bin/python-cntk27] [--runs N] [--threads N]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

VOCAB, EMBED, HIDDEN, CLASSES = 300, 64, 128, 10


def _median_times(step, iters, rounds):
    cpu, wall = [], []
    for _ in range(rounds):
        c0, w0 = time.process_time(), time.perf_counter()
        for _ in range(iters):
            step()
        cpu.append((time.process_time() - c0) / iters)
        wall.append((time.perf_counter() - w0) / iters)
    return float(np.median(cpu)), float(np.median(wall))


def lstm_step(C, rng):
    x = C.sequence.input_variable(VOCAB, is_sparse=True)
    y = C.input_variable(CLASSES)
    z = C.layers.Sequential([C.layers.Embedding(EMBED), C.layers.Recurrence(C.layers.LSTM(HIDDEN)),
                             C.sequence.last, C.layers.Dense(CLASSES)])(x)
    loss = C.cross_entropy_with_softmax(z, y)
    trainer = C.Trainer(z, (loss, C.classification_error(z, y)),
                        [C.sgd(z.parameters, C.learning_parameter_schedule_per_sample(0.001))])
    feeds = []
    for _ in range(4):
        lengths = rng.randint(5, 61, 32)
        words = [rng.randint(0, VOCAB, n).tolist() for n in lengths]
        labels = np.eye(CLASSES, dtype=np.float32)[rng.randint(0, CLASSES, 32)]
        feeds.append({x: C.Value.one_hot(words, VOCAB), y: labels})
    state = [0]

    def step():
        trainer.train_minibatch(feeds[state[0] % len(feeds)])
        state[0] += 1
    return step


def lstm_dense_step(C, rng):
    """The same recurrence on dense 64-dim input features (no sparse embedding), adam."""
    x = C.sequence.input_variable(EMBED)
    y = C.input_variable(CLASSES)
    z = C.layers.Sequential([C.layers.Recurrence(C.layers.LSTM(HIDDEN)), C.sequence.last,
                             C.layers.Dense(CLASSES)])(x)
    loss = C.cross_entropy_with_softmax(z, y)
    trainer = C.Trainer(z, (loss, C.classification_error(z, y)),
                        [C.adam(z.parameters, C.learning_parameter_schedule_per_sample(0.001),
                                C.momentum_schedule(0.9))])
    feeds = []
    for _ in range(4):
        lengths = rng.randint(5, 61, 32)
        features = [rng.standard_normal((n, EMBED)).astype(np.float32) for n in lengths]
        labels = np.eye(CLASSES, dtype=np.float32)[rng.randint(0, CLASSES, 32)]
        feeds.append({x: features, y: labels})
    state = [0]

    def step():
        trainer.train_minibatch(feeds[state[0] % len(feeds)])
        state[0] += 1
    return step


def eval_step(C, rng):
    x = C.input_variable(784)
    h = x
    for k, (i, o) in enumerate(((784, 256), (256, 256), (256, 10))):
        h = C.times(h, C.parameter(init=(rng.standard_normal((i, o)) * 0.05).astype(np.float32))) + \
            C.parameter(init=np.zeros(o, np.float32))
        if k < 2:
            h = C.relu(h)
    sample = rng.standard_normal((1, 784)).astype(np.float32)

    def step():
        h.eval({x: sample})
    return step


def measure(rounds):
    import cntk as C
    C.device.try_set_default_device(C.device.cpu())
    rng = np.random.RandomState(0)
    lstm = lstm_step(C, rng)
    for _ in range(3):
        lstm()
    lstm_cpu, lstm_wall = _median_times(lstm, 4, rounds)
    dense = lstm_dense_step(C, rng)
    for _ in range(3):
        dense()
    dense_cpu, dense_wall = _median_times(dense, 4, rounds)
    ev = eval_step(C, rng)
    for _ in range(50):
        ev()
    eval_cpu, eval_wall = _median_times(ev, 200, rounds)
    return lstm_cpu, lstm_wall, dense_cpu, dense_wall, eval_cpu, eval_wall


def _run_child(python, rounds, env, cwd):
    out = subprocess.check_output([python, os.path.abspath(__file__), "--child", "--rounds", str(rounds)],
                                  env=env, cwd=cwd, universal_newlines=True)
    return [float(v) for v in out.strip().splitlines()[-1].split()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle", help="a Python with real CNTK 2.7 installed")
    parser.add_argument("--runs", type=int, default=3, help="alternating runs of each side (with --oracle)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1,
                        help="OMP_NUM_THREADS / MKL_NUM_THREADS of both processes (default 1: on a shared machine "
                             "waiting intra-op threads dominate both engines)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child or not args.oracle:
        figures = measure(args.rounds)
        if not args.child:
            print("lstm step cpu %.2f ms wall %.2f ms | dense-input lstm step cpu %.2f ms wall %.2f ms | "
                  "one-sample eval cpu %.1f us wall %.1f us"
                  % (figures[0] * 1e3, figures[1] * 1e3, figures[2] * 1e3, figures[3] * 1e3, figures[4] * 1e6,
                     figures[5] * 1e6))
        print(" ".join("%.9f" % v for v in figures))
        return
    threads = {"OMP_NUM_THREADS": str(args.threads), "MKL_NUM_THREADS": str(args.threads)}
    ours_env = dict(os.environ, **threads)
    oracle_env = dict({k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, **threads)
    ours, theirs = [], []
    with tempfile.TemporaryDirectory() as scratch:  # no cntk package beside the oracle's script
        for _ in range(args.runs):
            ours.append(_run_child(sys.executable, args.rounds, ours_env, os.getcwd()))
            theirs.append(_run_child(args.oracle, args.rounds, oracle_env, scratch))
    ours, theirs = np.median(ours, axis=0), np.median(theirs, axis=0)
    names = ("lstm classifier step (cpu)", "lstm classifier step (wall)", "dense-input lstm step (cpu)",
             "dense-input lstm step (wall)", "one-sample eval (cpu)", "one-sample eval (wall)")
    for name, o, t in zip(names, ours, theirs):
        print("%-30s cntk-compat %10.1f us  CNTK 2.7 %10.1f us  ratio %.2fx" % (name, o * 1e6, t * 1e6, o / t))
    print("vs CNTK 2.7 (cpu time): lstm classifier %.2fx, dense-input lstm %.2fx, one-sample eval %.2fx"
          % (ours[0] / theirs[0], ours[2] / theirs[2], ours[4] / theirs[4]))


if __name__ == "__main__":
    main()
