"""Plain PyTorch workers (no cntk_compat code but the hooks) for the DDP comm hook tests."""
import json
import os

import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from cntk_compat.distributed import hooks
from tests.distributed._spawn import agent_environment

FEATURES, CLASSES, TRAIN, TEST = 16, 4, 512, 512
LOCAL_BATCH, EPOCHS, LR = 16, 3, 0.1


def classification_data(n, seed):
    """Four overlapping Gaussian clusters (a task that no model solves perfectly)."""
    rng = np.random.RandomState(seed)
    centers = np.random.RandomState(7).randn(CLASSES, FEATURES) * 0.6
    labels = rng.randint(0, CLASSES, n)
    features = centers[labels] + rng.randn(n, FEATURES)
    return torch.tensor(features, dtype=torch.float32), torch.tensor(labels)


def model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(FEATURES, 32), torch.nn.Tanh(), torch.nn.Linear(32, CLASSES))


def ddp_model(bits, device="cpu"):
    """A DDP-wrapped model() on ``device`` with the summing hook of ``bits`` bits, and the hook's state."""
    ddp = DistributedDataParallel(model().to(device), bucket_cap_mb=0.001)      # several buckets for a small model
    if bits == 32:
        state = hooks.SumState()
        ddp.register_comm_hook(state, hooks.allreduce_sum_hook)
    else:
        state = hooks.QuantizedGradientState(bits, module=ddp.module)
        ddp.register_comm_hook(state, hooks.quantized_gradient_hook)
    return ddp, state


def train_steps(ddp, optimizer, rank, world, steps):
    """``steps`` steps (each on this worker's part of the global minibatch); the loss is the sum over the
    samples divided by the global minibatch size, so the summed gradients are those of the global mean."""
    device = next(ddp.parameters()).device
    x, y = (t.to(device) for t in classification_data(TRAIN, 1))
    per_epoch = TRAIN // (LOCAL_BATCH * world)
    for step in steps:
        start = (step % per_epoch) * LOCAL_BATCH * world + rank * LOCAL_BATCH
        optimizer.zero_grad()
        out = ddp(x[start:start + LOCAL_BATCH])
        loss = torch.nn.functional.cross_entropy(out, y[start:start + LOCAL_BATCH], reduction="sum")
        (loss / (LOCAL_BATCH * world)).backward()
        optimizer.step()


def accuracy(module):
    x, y = (t.to(next(module.parameters()).device) for t in classification_data(TEST, 2))
    with torch.no_grad():
        return float((module(x).argmax(dim=1) == y).float().mean())


def flat(module):
    return torch.cat([p.detach().reshape(-1) for p in module.parameters()]).cpu().numpy()


def hook_worker(rank, world, port, out, bits_list, device="cpu"):
    """For each bit count: trains EPOCHS epochs and reports the accuracy; for quantized ones also checkpoints
    (model, optimizer, residuals) halfway, resumes in a fresh DDP model and compares with the uninterrupted run.
    On "cuda" the workers use NCCL where each has a GPU of its own, else share GPU 0 through gloo."""
    agent_environment(port)
    torch.set_num_threads(1)
    backend = "gloo"
    if device == "cuda":
        torch.cuda.set_device(rank % torch.cuda.device_count())
        backend = "nccl" if world <= torch.cuda.device_count() else "gloo"
    dist.init_process_group(backend, rank=rank, world_size=world)
    steps = EPOCHS * TRAIN // (LOCAL_BATCH * world)
    results, arrays = {}, {}
    for bits in bits_list:
        ddp, state = ddp_model(bits, device)
        optimizer = torch.optim.SGD(ddp.parameters(), lr=LR, momentum=0.9)
        train_steps(ddp, optimizer, rank, world, range(steps))
        results[str(bits)] = {"accuracy": accuracy(ddp.module)}
        arrays[bits] = flat(ddp.module)
        if bits != 32:
            ddp, state = ddp_model(bits, device)
            optimizer = torch.optim.SGD(ddp.parameters(), lr=LR, momentum=0.9)
            train_steps(ddp, optimizer, rank, world, range(steps // 2))
            saved = {"model": ddp.module.state_dict(), "optimizer": optimizer.state_dict(),
                     "hook": state.state_dict()}
            ddp, state = ddp_model(bits, device)
            optimizer = torch.optim.SGD(ddp.parameters(), lr=LR, momentum=0.9)
            ddp.module.load_state_dict(saved["model"])
            optimizer.load_state_dict(saved["optimizer"])
            state.load_state_dict(saved["hook"])
            train_steps(ddp, optimizer, rank, world, range(steps // 2, steps))
            results[str(bits)]["resumed_equal"] = bool(np.array_equal(flat(ddp.module), arrays[bits]))
    np.save(os.path.join(out, "rank%d.npy" % rank), np.stack([arrays[b] for b in bits_list]))
    with open(os.path.join(out, "rank%d.json" % rank), "w") as f:
        json.dump(results, f)
    dist.destroy_process_group()
