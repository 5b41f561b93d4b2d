"""Runs worker bodies in processes of their own, joined as torchrun would join them (gloo on the CPU)."""
import json
import os
import time

import numpy as np
import pytest
import torch.distributed as dist
import torch.multiprocessing as mp

DEADLINE_S = 300


def agent_store(world):
    """A TCPStore served by this process on a port the OS picks while binding it, as torchrun's agent serves one.

    Workers joined with :func:`agent_environment` are all its clients. Handing them a "free" port to bind
    themselves instead races with every other test on the machine: another process's listener can take the
    port first, and a worker then talks to the wrong program."""
    return dist.TCPStore("127.0.0.1", 0, world_size=world, is_master=True, wait_for_workers=False)


def agent_environment(port):
    """The variables torchrun sets for its workers to use the agent's store at 127.0.0.1:``port``."""
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), TORCHELASTIC_USE_AGENT_STORE="True")


def run_workers(body, out, *args, world=2):
    """Runs ``body(rank, world, port, out, *args)`` in ``world`` processes; fails on an error or a hang. Each
    worker writes ``rank<r>.json`` (and optionally ``rank<r>.npy``) to ``out``; returns their contents by rank
    (the array under "parameters")."""
    store = agent_store(world)
    context = mp.start_processes(body, args=(world, store.port, str(out)) + args, nprocs=world, join=False,
                                 start_method="spawn")
    deadline = time.time() + DEADLINE_S
    while not context.join(timeout=1):
        if time.time() > deadline:
            for process in context.processes:
                process.kill()
            pytest.fail("the workers did not finish within %d s (a collective hangs?)" % DEADLINE_S)
    results = []
    for rank in range(world):
        with open(os.path.join(str(out), "rank%d.json" % rank)) as f:
            results.append(json.load(f))
        array = os.path.join(str(out), "rank%d.npy" % rank)
        if os.path.exists(array):
            results[-1]["parameters"] = np.load(array)
    return results
