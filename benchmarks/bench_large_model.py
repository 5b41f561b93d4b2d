"""Build, save and load a large model: cntk (CNTK's initializers bit for bit, CNTK's v2 model file) against a
hand-written PyTorch baseline of the same tensors (torch.nn.init + torch.save / torch.load(weights_only=True)),
timed in alternating rounds in the same run; the medians and their ratios (ours / torch) are printed.

The model: one (rows, 256) float32 Parameter (rows from --values) times a sequence input, then Dense(256) and
Dense(2) (as CNTK's own >2 GB persist test, without its LSTMs). Building is timed once per initializer kind
(uniform, glorot_uniform, glorot_normal, he_uniform, he_normal, truncated_normal) on the big parameter, drawing
its values (cntk draws them when they are first needed). Saving is z.save() (atomic: a temporary file, fsync'ed,
then renamed) against torch.save of the same three tensors to a file (not fsync'ed: the ratio includes our
fsync); loading is C.Function.load() with the values in memory against torch.load, each side loading the file
it has just written (both from the page cache). Over 2**31 - 1 bytes the file
takes CNTK's layout for models over 2 GB (see model_formats/cntkv2_wire.py).

CNTK 2.7's own times for the same work are quoted in docs/PERFORMANCE.md (measured separately, not here).

Usage: python benchmarks/bench_large_model.py [--values N] [--rounds R] [--dir FOLDER] [--kinds k1,k2]
"""
import argparse
import gc
import os
import time

import numpy as np
import torch

import cntk as C

COLUMNS = 256
KINDS = ["uniform", "glorot_uniform", "glorot_normal", "he_uniform", "he_normal", "truncated_normal"]


def _ours_init(kind):
    if kind == "uniform":
        return C.uniform(3.0, seed=12345)
    if kind == "truncated_normal":
        return C.truncated_normal(0.1, seed=12345)
    return getattr(C, kind)(seed=12345)


def _torch_init(kind, t):
    # the same widths as CNTK's (fan_in = 256 columns, fan_out = rows for a (rows, 256) weight read CNTK's way)
    rows, cols = t.shape
    fan_in, fan_out = cols, rows
    if kind == "uniform":
        return torch.nn.init.uniform_(t, -3.0, 3.0)
    if kind == "glorot_uniform":
        w = float(np.sqrt(6.0 / (fan_in + fan_out)))
        return torch.nn.init.uniform_(t, -w, w)
    if kind == "glorot_normal":
        return torch.nn.init.normal_(t, 0.0, float(np.sqrt(2.0 / (fan_in + fan_out))))
    if kind == "he_uniform":
        w = float(np.sqrt(6.0 / fan_in))
        return torch.nn.init.uniform_(t, -w, w)
    if kind == "he_normal":
        return torch.nn.init.normal_(t, 0.0, float(np.sqrt(2.0 / fan_in)))
    return torch.nn.init.trunc_normal_(t, 0.0, 0.1, -0.2, 0.2)


def _timed(fn):
    gc.collect()
    t0 = time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, result


def _median_pair(ours, theirs, rounds):
    a, b = [], []
    for _ in range(rounds):
        a.append(_timed(ours)[0])
        b.append(_timed(theirs)[0])
    return float(np.median(a)), float(np.median(b))


def _row(label, ours, theirs):
    print("%-28s %9.3f s %9.3f s %7.2fx" % (label, ours, theirs, ours / theirs), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--values", type=float, default=100e6, help="values of the big parameter (default 100M)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds; the medians are compared")
    ap.add_argument("--dir", default="/tmp", help="folder for the model files (removed afterwards)")
    ap.add_argument("--kinds", default=",".join(KINDS), help="initializers to time")
    a = ap.parse_args()
    C.device.try_set_default_device(C.device.cpu())
    rows = max(1, int(a.values) // COLUMNS)
    n = rows * COLUMNS
    print("big parameter: (%d, %d) float32 = %d values (%.2f GB); torch %s, %d threads; rounds %d"
          % (rows, COLUMNS, n, n * 4 / 2 ** 30, torch.__version__, torch.get_num_threads(), a.rounds))
    print("%-28s %11s %11s %8s" % ("", "cntk", "torch", "ratio"))

    for kind in a.kinds.split(","):
        def ours(kind=kind):
            p = C.Parameter((rows, COLUMNS), init=_ours_init(kind))
            p.tensor  # draws the values
            return p

        def theirs(kind=kind):
            return _torch_init(kind, torch.empty(rows, COLUMNS))
        _row("build " + kind, *_median_pair(ours, theirs, a.rounds))

    x = C.sequence.input_variable(rows)
    w = C.Parameter((rows, COLUMNS), init=_ours_init("uniform"))
    z = C.layers.Dense(2)(C.layers.Dense(COLUMNS, activation=C.relu)(C.times(x, w)))
    tensors = {"p%d" % i: p.tensor.detach() for i, p in enumerate(z.parameters)}
    path_ours = os.path.join(a.dir, "bench_large_model.%d.model" % os.getpid())
    path_theirs = os.path.join(a.dir, "bench_large_model.%d.pt" % os.getpid())
    try:
        def load_ours():
            f = C.Function.load(path_ours)
            for p in f.parameters:
                p.tensor  # the values in memory
            return f

        # each side loads the file it has just written, so that both read it from the page cache alike (a file
        # written before the other side's one may have been evicted when the two approach the cache's size)
        saves, loads = ([], []), ([], [])
        for _ in range(a.rounds):
            saves[0].append(_timed(lambda: z.save(path_ours))[0])
            loads[0].append(_timed(load_ours)[0])
            saves[1].append(_timed(lambda: torch.save(tensors, path_theirs))[0])
            loads[1].append(_timed(lambda: torch.load(path_theirs, weights_only=True))[0])
        _row("save", float(np.median(saves[0])), float(np.median(saves[1])))
        _row("load", float(np.median(loads[0])), float(np.median(loads[1])))
        print("%-28s %9.2f GB %9.2f GB" % ("file size", os.path.getsize(path_ours) / 2 ** 30,
                                           os.path.getsize(path_theirs) / 2 ** 30))
        loaded = load_ours()
        same = all(np.array_equal(p.tensor.detach().numpy(), q.tensor.detach().numpy())
                   for p, q in zip(z.parameters, loaded.parameters))
        print("loaded values equal the saved ones:", same)
    finally:
        for path in (path_ours, path_theirs):
            if os.path.exists(path):
                os.remove(path)


if __name__ == "__main__":
    main()
