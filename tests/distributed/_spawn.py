"""Runs worker bodies in processes of their own, joined as torchrun would join them (gloo on the CPU)."""
import json
import os
import socket
import time

import numpy as np
import pytest
import torch.multiprocessing as mp

DEADLINE_S = 300


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_workers(body, out, *args, world=2):
    """Runs ``body(rank, world, port, out, *args)`` in ``world`` processes; fails on an error or a hang. Each
    worker writes ``rank<r>.json`` (and optionally ``rank<r>.npy``) to ``out``; returns their contents by rank
    (the array under "parameters")."""
    context = mp.start_processes(body, args=(world, free_port(), str(out)) + args, nprocs=world, join=False,
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
