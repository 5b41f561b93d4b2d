"""Training steps of the guided tour's MNIST conv net (seed 000, create_model_mn_factory): cntk-compat's Trainer
vs the same network hand-written in PyTorch.

Both sides start from the same weights, see the same random digit-sized minibatches (fed from numpy every step)
and run the same update rule (momentum SGD, unit-gain momentum, per-sample learning rate on the summed loss), in
this one process; the ratio (cntk-compat time / PyTorch time) is printed at the end. Goal: <= 1.10.
Chunks of minibatches alternate between the two sides and each keeps its fastest chunk, so that a busy machine
slows both alike.
"""
import argparse
import time

import numpy as np
import torch
import torch.nn.functional as F

import cntk as C

LR_PER_SAMPLE = 0.001
MOMENTUM_PER_SAMPLE = 0.9990239141819757


def create_model_mn():
    with C.layers.default_options(activation=C.ops.relu, pad=False):
        return C.layers.Sequential([
            C.layers.Convolution2D((5, 5), num_filters=32, reduction_rank=0, pad=True),
            C.layers.MaxPooling((3, 3), strides=(2, 2)),
            C.layers.Convolution2D((3, 3), num_filters=48),
            C.layers.MaxPooling((3, 3), strides=(2, 2)),
            C.layers.Convolution2D((3, 3), num_filters=64),
            C.layers.Dense(96),
            C.layers.Dropout(dropout_rate=0.5),
            C.layers.Dense(10, activation=None)])


class TorchMNIST(torch.nn.Module):
    """The same network; its weights are copied from the cntk-compat model's parameters (CNTK's layouts, found by
    their shapes, which are all different)."""

    def __init__(self, cntk_model):
        super().__init__()
        by_shape = {p.shape: p.value for p in cntk_model.parameters}
        self.convs = torch.nn.ModuleList()
        for w_shape, padding in (((32, 1, 5, 5), 2), ((48, 32, 3, 3), 0), ((64, 48, 3, 3), 0)):
            conv = torch.nn.Conv2d(w_shape[1], w_shape[0], w_shape[2:], padding=padding)
            with torch.no_grad():
                conv.weight.copy_(torch.from_numpy(by_shape[w_shape]))
                conv.bias.copy_(torch.from_numpy(by_shape[(w_shape[0], 1, 1)].reshape(-1)))
            self.convs.append(conv)
        self.dense = torch.nn.ModuleList()
        for w_shape in ((64, 3, 3, 96), (96, 10)):
            W = by_shape[w_shape].reshape(-1, w_shape[-1])
            lin = torch.nn.Linear(W.shape[0], W.shape[1])
            with torch.no_grad():
                lin.weight.copy_(torch.from_numpy(W.T))
                lin.bias.copy_(torch.from_numpy(by_shape[(w_shape[-1],)]))
            self.dense.append(lin)

    def forward(self, x):
        x = x.unsqueeze(1)
        x = F.max_pool2d(torch.relu(self.convs[0](x)), 3, 2)
        x = F.max_pool2d(torch.relu(self.convs[1](x)), 3, 2)
        x = torch.relu(self.convs[2](x)).flatten(1)
        x = F.dropout(torch.relu(self.dense[0](x)), 0.5, self.training)
        return self.dense[1](x)


def timeit_interleaved(steps_a, steps_b, steps, chunk=10, warmup=10):
    """Seconds per step of each side: chunks of `chunk` steps alternate between the sides (so that load from
    other processes hits both alike), and each side keeps its fastest chunk."""
    for _ in range(warmup):
        steps_a()
        steps_b()
    best = [float("inf"), float("inf")]
    for _ in range(max(1, steps // chunk)):
        for side, step in enumerate((steps_a, steps_b)):
            sync()
            t0 = time.perf_counter()
            for _ in range(chunk):
                step()
            sync()
            best[side] = min(best[side], (time.perf_counter() - t0) / chunk)
    return best


def sync():
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=300, help="timed minibatches per side")
    parser.add_argument("--chunk", type=int, default=10, help="minibatches per timed chunk")
    parser.add_argument("--batch", type=int, default=256)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    pool = 8  # distinct random minibatches, cycled
    images = rng.random((pool, args.batch, 28, 28), dtype=np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, (pool, args.batch))]
    device = C.device.use_default_device().torch_device()

    model_factory = create_model_mn()
    x = C.input_variable((28, 28))
    y = C.input_variable(10)
    z = model_factory(x)
    loss = C.cross_entropy_with_softmax(z, y)
    metric = C.classification_error(z, y)
    learner = C.learners.momentum_sgd(z.parameters, C.learning_parameter_schedule_per_sample(LR_PER_SAMPLE),
                                      C.momentum_schedule_per_sample(MOMENTUM_PER_SAMPLE))
    trainer = C.Trainer(z, (loss, metric), [learner])

    net = TorchMNIST(z).to(device)
    # same numbers on both sides (inference: no dropout)
    with torch.no_grad():
        net.eval()
        y_t = net(torch.from_numpy(images[0]).to(device)).cpu().numpy()
        net.train()
    y_c = z.eval({x: images[0]})
    assert np.allclose(y_c, y_t, atol=1e-3), "cntk-compat and PyTorch disagree: %g" % np.abs(y_c - y_t).max()

    momentum = MOMENTUM_PER_SAMPLE ** args.batch  # per-minibatch momentum of the per-sample schedule
    optimizer = torch.optim.SGD(net.parameters(), lr=LR_PER_SAMPLE, momentum=momentum, dampening=1 - momentum,
                                foreach=True)
    counter = {"cntk": 0, "torch": 0}

    def cntk_step():
        k = counter["cntk"] = (counter["cntk"] + 1) % pool
        trainer.train_minibatch({x: images[k], y: labels[k]})

    def torch_step():
        k = counter["torch"] = (counter["torch"] + 1) % pool
        data = torch.from_numpy(images[k]).to(device)
        target = torch.from_numpy(labels[k]).to(device)
        optimizer.zero_grad(set_to_none=True)
        out = net(data)
        step_loss = -(target * F.log_softmax(out, -1)).sum()
        step_loss.backward()
        optimizer.step()
        (out.argmax(-1) != target.argmax(-1)).float().sum().item()  # the metric, read back like Trainer does

    t_torch, t_cntk = timeit_interleaved(torch_step, cntk_step, args.steps, args.chunk)
    print("device: %s  batch: %d  MNIST conv net (seed 000), %d training minibatches per side"
          % (device, args.batch, args.steps))
    print("pytorch      : %.3f ms / minibatch" % (t_torch * 1e3))
    print("cntk-compat  : %.3f ms / minibatch" % (t_cntk * 1e3))
    print("ratio cntk-compat / pytorch: %.3f (goal <= 1.10)" % (t_cntk / t_torch))


if __name__ == "__main__":
    main()
