"""Fixed per-call cost: one-sample ``eval`` / ``__call__`` and ``trainer.train_minibatch`` vs hand-written PyTorch.

Workloads (same weights, same data, both sides in this one process):
- one-sample ``model.eval({x: s})`` and ``model(s)`` of a 784-256-256-10 net vs a torch module under no_grad
  (numpy in, numpy out on both sides);
- ``trainer.train_minibatch({x: X, y: Y})`` of a 784-128-10 MLP with cross_entropy_with_softmax and sgd, at
  minibatch 32 and 1024, vs forward + loss + backward + torch.optim.SGD.step from the same numpy arrays, and vs
  the same loop doing the arithmetic CNTK rounds differently (on the CPU: the loss's reductions accumulated in
  double, SGD's product and difference rounded apart), which cntk-compat does to print CNTK's numbers.

Each workload is timed in alternating rounds (ours, theirs, ours, ...); the median round is reported, as
process CPU time and wall time. Goals: eval <= 1.2x, train_minibatch@32 <= 1.15x, @1024 <= 1.05x.

Usage: python benchmarks/bench_latency.py [--rounds R] [--device cpu|cuda] [--threads N]
"""
import argparse
import time

import numpy as np
import torch

import cntk as C


def _sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def _time_round(step, iters, device):
    _sync(device)
    c0, w0 = time.process_time(), time.perf_counter()
    for _ in range(iters):
        step()
    _sync(device)
    return (time.process_time() - c0) / iters, (time.perf_counter() - w0) / iters


def compare(ours, theirs, iters, rounds, device):
    """(ours cpu, theirs cpu, ours wall, theirs wall): medians over alternating rounds, seconds per call."""
    for _ in range(max(3, iters // 10)):
        ours()
        theirs()
    o, t = [], []
    for _ in range(rounds):
        o.append(_time_round(ours, iters, device))
        t.append(_time_round(theirs, iters, device))
    o, t = np.array(o), np.array(t)
    return np.median(o[:, 0]), np.median(t[:, 0]), np.median(o[:, 1]), np.median(t[:, 1])


def _weights(rng, dims):
    return [(rng.standard_normal((i, o)).astype(np.float32) * 0.05, np.zeros(o, np.float32))
            for i, o in zip(dims[:-1], dims[1:])]


def cntk_mlp(weights):
    x = C.input_variable(weights[0][0].shape[0])
    h = x
    for k, (W, b) in enumerate(weights):
        h = C.times(h, C.parameter(init=W)) + C.parameter(init=b)
        if k < len(weights) - 1:
            h = C.relu(h)
    return x, h


def torch_mlp(weights, device):
    layers = []
    for k, (W, b) in enumerate(weights):
        lin = torch.nn.Linear(W.shape[0], W.shape[1])
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(W.T))
            lin.bias.copy_(torch.from_numpy(b))
        layers.append(lin)
        if k < len(weights) - 1:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers).to(device)


def report(name, result):
    oc, tc, ow, tw = result
    print("%-34s cpu %8.1f us vs %8.1f us  ratio %.2fx | wall %8.1f us vs %8.1f us  ratio %.2fx"
          % (name, oc * 1e6, tc * 1e6, oc / tc, ow * 1e6, tw * 1e6, ow / tw))
    return oc / tc


def bench_eval(rng, device, rounds):
    weights = _weights(rng, (784, 256, 256, 10))
    x, model = cntk_mlp(weights)
    net = torch_mlp(weights, device)
    sample = rng.standard_normal((1, 784)).astype(np.float32)
    dev = torch.device(device)

    def theirs():
        with torch.no_grad():
            return net(torch.from_numpy(sample).to(dev)).cpu().numpy()

    np.testing.assert_allclose(model.eval({x: sample}), theirs(), rtol=1e-4, atol=1e-5)
    ratios = {"eval": report("one-sample eval({x: s})", compare(lambda: model.eval({x: sample}), theirs, 200,
                                                               rounds, device))}
    ratios["call"] = report("one-sample model(s)", compare(lambda: model(sample), theirs, 200, rounds, device))
    return ratios


def bench_train(rng, device, rounds, batch):
    """(ratio against torch's own arithmetic, ratio against torch doing CNTK's roundings)."""
    weights = _weights(rng, (784, 128, 10))
    x, z = cntk_mlp(weights)
    y = C.input_variable(10)
    loss = C.cross_entropy_with_softmax(z, y)
    trainer = C.Trainer(z, (loss, C.classification_error(z, y)),
                        [C.sgd(z.parameters, C.learning_parameter_schedule(0.01))])
    net = torch_mlp(weights, device)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    params = list(net.parameters())
    X = rng.standard_normal((batch, 784)).astype(np.float32)
    labels = rng.integers(0, 10, batch)
    Y = np.eye(10, dtype=np.float32)[labels]
    dev = torch.device(device)

    def theirs():
        xb = torch.from_numpy(X).to(dev)
        yb = torch.from_numpy(Y).to(dev)
        opt.zero_grad(set_to_none=True)
        out = net(xb)
        lv = torch.nn.functional.cross_entropy(out, yb, reduction="sum")
        errors = (out.detach().argmax(1) != yb.argmax(1)).sum()  # the Trainer's metric, as a loop would log it
        lv.backward()
        opt.step()
        return lv.detach(), errors

    def theirs_cntk_roundings():
        # what cntk-compat computes to print CNTK's numbers: on the CPU the loss's log-sum-exp and dot product
        # accumulated in double and rounded once, and SGD's update rounded twice (lr * g, then the difference)
        # where torch's add_(g, alpha=-lr) fuses both
        xb = torch.from_numpy(X).to(dev)
        yb = torch.from_numpy(Y).to(dev)
        out = net(xb)
        if dev.type == "cpu":
            lse = torch.logsumexp(out.double(), 1).float()
            dot = (yb * out).sum(1, dtype=torch.float64).float()
        else:
            lse, dot = torch.logsumexp(out, 1), (yb * out).sum(1)
        lv = (lse - dot).sum()
        errors = (out.detach().argmax(1) != yb.argmax(1)).sum()
        grads = torch.autograd.grad(lv, params)
        with torch.no_grad():
            torch._foreach_mul_(grads, 0.01)
            torch._foreach_sub_(params, grads)
        return lv.detach(), errors

    iters = 200 if batch <= 64 else 20
    # learning_parameter_schedule(0.01) applies lr to the gradient of the summed loss, as SGD(lr) does here
    plain = report("train_minibatch @%d" % batch,
                   compare(lambda: trainer.train_minibatch({x: X, y: Y}), theirs, iters, rounds, device))
    same = report("  vs torch with CNTK's roundings",
                  compare(lambda: trainer.train_minibatch({x: X, y: Y}), theirs_cntk_roundings, iters, rounds,
                          device))
    return plain, same


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--threads", type=int, default=1,
                        help="torch CPU threads (default 1: on a shared machine, intra-op threads that wait on "
                             "each other dominate small calls on both sides)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    if args.device == "cuda":
        C.device.try_set_default_device(C.device.gpu(0))
    else:
        C.device.try_set_default_device(C.device.cpu())
    print("torch %s, %d threads, device %s; cntk-compat / torch, median of %d alternating rounds"
          % (torch.__version__, torch.get_num_threads(), args.device, args.rounds))
    ratios = bench_eval(rng, args.device, args.rounds)
    ratios["train32"], same32 = bench_train(rng, args.device, args.rounds, 32)
    ratios["train1024"], same1024 = bench_train(rng, args.device, args.rounds, 1024)
    print("latency ratios (cpu time): eval %.2fx (goal 1.20) call %.2fx (goal 1.20) train_minibatch@32 %.2fx "
          "(goal 1.15) @1024 %.2fx (goal 1.05); against torch doing CNTK's roundings @32 %.2fx @1024 %.2fx"
          % (ratios["eval"], ratios["call"], ratios["train32"], ratios["train1024"], same32, same1024))


if __name__ == "__main__":
    main()
