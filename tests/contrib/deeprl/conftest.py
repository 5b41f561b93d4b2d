"""Gym-like spaces (recognized by their class path, as the agents recognize gym's), a tiny deterministic
environment and the seeds of the CNTK 2.7 runs for the deeprl tests."""
import random

import numpy as np
import pytest

import cntk as C


class Discrete:
    def __init__(self, n):
        self.n = n


class Box:
    def __init__(self, low, high, shape=None):
        self.low = np.zeros(shape) + low if shape is not None else np.asarray(low, dtype=float)
        self.high = np.zeros(shape) + high if shape is not None else np.asarray(high, dtype=float)
        self.shape = self.low.shape


class MultiBinary:
    def __init__(self, n):
        self.n = n


Discrete.__module__ = 'gym.spaces.discrete'
Box.__module__ = 'gym.spaces.box'
MultiBinary.__module__ = 'gym.spaces.multi_binary'


class Spaces:
    Discrete, Box, MultiBinary = Discrete, Box, MultiBinary


@pytest.fixture
def spaces():
    return Spaces


def run_chain(agent, episodes, observe, length=4, max_steps=8):
    """Episodes on a chain of ``length`` states starting at 0: action 1 moves right, action 0 left (not past 0);
    reaching the last state ends the episode with reward 1, running out of steps ends it with 0."""
    for _ in range(episodes):
        s = 0
        action, _ = agent.start(observe(s))
        for _ in range(max_steps):
            s = min(length - 1, s + 1) if action == 1 else max(0, s - 1)
            if s == length - 1:
                agent.end(1.0, observe(s))
                break
            action, _ = agent.step(0.0, observe(s))
        else:
            agent.end(0.0, observe(s))


@pytest.fixture
def chain():
    return run_chain


@pytest.fixture
def config_file(tmp_path):
    """Writes an INI text to a file and gives its path."""
    def write(text, name='agent.ini'):
        path = tmp_path / name
        path.write_text(text)
        return str(path)
    return write


@pytest.fixture
def cntk_run_seeds():
    """The seeds the training runs measured under CNTK 2.7 started from: numpy's and Python's global generators at 3,
    CNTK's automatic seeds at 0."""
    np.random.seed(3)
    random.seed(3)
    C.cntk_py.reset_random_seed(0)
