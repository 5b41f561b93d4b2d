"""Automatic seeds of random nodes (dropout, the cntk.random samplers, random_sample and its inclusion
frequency) are per worker in a distributed job, as CNTK 2.7 makes them: counter * workers + rank, while
initializers take the counter itself (the same weights in every worker), and fixed or explicit seeds stay as
they are. Golden values: CNTK 2.7 under `mpiexec -n 2` (ranks 0 and 1) and alone; here the launcher's
variables are set for the worker's view without starting a process group."""
import numpy as np
import pytest

import cntk as C
from cntk import cntk_py


def _seeds():
    cntk_py.reset_random_seed(0)
    x = C.input_variable(4)
    ones = C.constant(np.ones(5, np.float32))
    res = [C.dropout(x, 0.5).root_function.attributes['rngSeed'],
           C.random_sample(ones, 2, True).root_function.attributes['rngSeed'],
           C.random_sample_inclusion_frequency(ones, 2, True).root_function.attributes['rngSeed'],
           C.random.normal_like(x).root_function.attributes['rngSeed'],
           C.random.bernoulli((2,)).root_function.attributes['rngSeed'],
           C.random.gumbel((2,)).root_function.attributes['rngSeed']]
    C.parameter((2,), init=C.glorot_uniform())          # takes the counter (6), not a per-worker seed
    res.append(C.dropout(x, 0.5).root_function.attributes['rngSeed'])
    return res


@pytest.mark.parametrize("variables, expected", [
    ({}, [0, 1, 2, 3, 4, 5, 7]),
    ({"WORLD_SIZE": "2", "RANK": "0"}, [0, 2, 4, 6, 8, 10, 14]),
    ({"WORLD_SIZE": "2", "RANK": "1"}, [1, 3, 5, 7, 9, 11, 15]),
    ({"OMPI_COMM_WORLD_SIZE": "3", "OMPI_COMM_WORLD_RANK": "2"}, [2, 5, 8, 11, 14, 17, 23]),
])
def test_random_nodes_take_per_worker_seeds(monkeypatch, variables, expected):
    for name in ("WORLD_SIZE", "RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMI_SIZE", "PMI_RANK"):
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert _seeds() == expected


def test_fixed_and_explicit_seeds_are_the_same_in_every_worker(monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", "1")
    x = C.input_variable(4)
    try:
        cntk_py.set_fixed_random_seed(5)
        assert C.dropout(x, 0.5).root_function.attributes['rngSeed'] == 5
        assert cntk_py.generate_random_seed(True) == 5
    finally:
        cntk_py.reset_random_seed(0)
    assert C.dropout(x, 0.5, seed=3).root_function.attributes['rngSeed'] == 3
    assert [cntk_py.generate_random_seed(True) for _ in range(3)] == [1, 3, 5]
    assert [cntk_py.generate_random_seed(False) for _ in range(2)] == [3, 4]
