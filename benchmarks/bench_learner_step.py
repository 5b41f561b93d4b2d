"""Time one learner step on a 10M-parameter model: cntk sgd / momentum_sgd / adam vs torch.optim with foreach.

Usage: python benchmarks/bench_learner_step.py [--device cpu|cuda] [--steps N] [--rounds R]
"""
import argparse
import time

import numpy as np
import torch

import cntk as C

SHAPES = [(2000, 2000), (2000, 2000), (1000, 2000), (1000,)]  # ~10M values


def _sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def _time_once(step, steps, device):
    _sync(device)
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    _sync(device)
    return (time.perf_counter() - t0) / steps


def _time_pair(ours, theirs, steps, rounds, device):
    """Median seconds per step of ``ours`` and ``theirs``, timed in alternating rounds so that load from other
    processes (shared CPU, memory bandwidth) falls on both alike."""
    for _ in range(3):
        ours()
        theirs()
    t_ours, t_theirs = [], []
    for _ in range(rounds):
        t_ours.append(_time_once(ours, steps, device))
        t_theirs.append(_time_once(theirs, steps, device))
    return float(np.median(t_ours)), float(np.median(t_theirs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--steps", type=int, default=5, help="steps per timed round")
    ap.add_argument("--rounds", type=int, default=9, help="alternating rounds; the medians are compared")
    a = ap.parse_args()
    if a.device == "cpu":
        C.device.try_set_default_device(C.device.cpu())
    params = [C.parameter(s, init=0.01) for s in SHAPES]
    grads = [torch.randn(s, device=params[0].tensor.device) for s in SHAPES]
    n = sum(int(np.prod(s)) for s in SHAPES)
    print("parameters: %d values on %s" % (n, params[0].tensor.device))
    lr = C.learning_parameter_schedule(0.01)
    ours = {"sgd": C.sgd(params, lr),
            "momentum_sgd": C.momentum_sgd(params, lr, C.momentum_schedule(0.9)),
            "adam": C.adam(params, lr, C.momentum_schedule(0.9))}
    theirs_params = [torch.nn.Parameter(p.tensor.detach().clone()) for p in params]
    theirs = {"sgd": torch.optim.SGD(theirs_params, lr=0.01, foreach=True),
              "momentum_sgd": torch.optim.SGD(theirs_params, lr=0.01, momentum=0.9, foreach=True),
              "adam": torch.optim.Adam(theirs_params, lr=0.01, foreach=True)}
    by_param = dict(zip(params, grads))
    for p, g in zip(theirs_params, grads):
        p.grad = g
    for name in ours:
        t_ours, t_torch = _time_pair(lambda: ours[name].update(by_param, 1), theirs[name].step, a.steps,
                                     a.rounds, a.device)
        print("%-13s cntk %8.3f ms   torch %8.3f ms   ratio %.3f" % (name, t_ours * 1e3, t_torch * 1e3,
                                                                    t_ours / t_torch))


if __name__ == "__main__":
    main()
