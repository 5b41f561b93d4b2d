"""Forward + backward of a 3-layer MLP on a 256-sample batch: cntk-compat vs the same model in plain PyTorch.

Both sides start from the same numpy batch and the same weights and run in this one process; the ratio
(cntk-compat time / PyTorch time) is printed at the end. Goal: <= 1.10.
"""
import argparse
import time

import numpy as np
import torch

import cntk as C

DIMS = (784, 512, 512, 10)


def build_cntk(weights):
    x = C.input_variable(DIMS[0])
    h = x
    params = []
    for k, (W, b) in enumerate(weights):
        Wp, bp = C.parameter(init=W), C.parameter(init=b)
        params += [Wp, bp]
        h = C.times(h, Wp) + bp
        if k < len(weights) - 1:
            h = C.relu(h)
    return x, h, params


class TorchMLP(torch.nn.Module):
    def __init__(self, weights):
        super().__init__()
        self.layers = torch.nn.ModuleList()
        for W, b in weights:
            lin = torch.nn.Linear(W.shape[0], W.shape[1])
            with torch.no_grad():
                lin.weight.copy_(torch.from_numpy(W.T))
                lin.bias.copy_(torch.from_numpy(b))
            self.layers.append(lin)

    def forward(self, x):
        for k, lin in enumerate(self.layers):
            x = lin(x)
            if k < len(self.layers) - 1:
                x = torch.relu(x)
        return x


def timeit(step, iters, warmup=10):
    for _ in range(warmup):
        step()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(iters):
            step()
        best = min(best, (time.perf_counter() - t0) / iters)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--batch", type=int, default=256)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    weights = [(rng.standard_normal((i, o)).astype(np.float32) * 0.05, np.zeros(o, np.float32))
               for i, o in zip(DIMS[:-1], DIMS[1:])]
    data = rng.standard_normal((args.batch, DIMS[0])).astype(np.float32)
    device = C.device.use_default_device().torch_device()

    from cntk_compat.core.engine import evaluate_tensors
    x, out, params = build_cntk(weights)

    def cntk_step():
        for p in params:
            p.tensor.grad = None
        (y,), _ = evaluate_tensors([out.output], {x: data}, requires_grad=True)
        y.sum().backward()

    model = TorchMLP(weights).to(device)

    def torch_step():
        model.zero_grad(set_to_none=True)
        y = model(torch.from_numpy(data).to(device))
        y.sum().backward()

    # same numbers on both sides
    (y_c,), _ = evaluate_tensors([out.output], {x: data})
    y_t = model(torch.from_numpy(data).to(device)).detach()
    assert torch.allclose(y_c, y_t, atol=1e-4), "cntk-compat and PyTorch disagree"

    t_torch = timeit(torch_step, args.iters)
    t_cntk = timeit(cntk_step, args.iters)
    t_torch = min(t_torch, timeit(torch_step, args.iters))
    print("device: %s  batch: %d  MLP %s" % (device, args.batch, "-".join(map(str, DIMS))))
    print("pytorch      : %.3f ms / step" % (t_torch * 1e3))
    print("cntk-compat  : %.3f ms / step" % (t_cntk * 1e3))
    print("ratio cntk-compat / pytorch: %.3f (goal <= 1.10)" % (t_cntk / t_torch))


if __name__ == "__main__":
    main()
