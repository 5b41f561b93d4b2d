"""Time one learner step on a 10M-parameter model: cntk sgd / momentum_sgd / adam vs torch.optim with foreach.

Usage: python benchmarks/bench_learner_step.py [--device cpu|cuda] [--steps N]
"""
import argparse
import time

import numpy as np
import torch

import cntk as C

SHAPES = [(2000, 2000), (2000, 2000), (1000, 2000), (1000,)]  # ~10M values


def _time(step, steps, device):
    for _ in range(3):
        step()
    if device == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    if device == "cuda":
        torch.cuda.synchronize()
    return (time.perf_counter() - t0) / steps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--steps", type=int, default=20)
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
        t_ours = _time(lambda: ours[name].update(by_param, 1), a.steps, a.device)
        t_torch = _time(theirs[name].step, a.steps, a.device)
        print("%-13s cntk %8.3f ms   torch %8.3f ms   ratio %.3f" % (name, t_ours * 1e3, t_torch * 1e3,
                                                                    t_ours / t_torch))


if __name__ == "__main__":
    main()
