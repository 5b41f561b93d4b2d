"""Shared test fixtures."""
import contextlib

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _isolated_numpy_print_options():
    """Seed cells call np.set_printoptions (e.g. precision=4); keep that from leaking into later tests."""
    saved = np.get_printoptions()
    yield
    np.set_printoptions(**saved)


@contextlib.contextmanager
def isolated_automatic_random_seeds():
    """CNTK's automatic seed counter is process-wide (set_fixed_random_seed fixes it for every later learner and
    random node); restores it on leaving, so that a fixed seed set inside does not leak into later tests."""
    from cntk_compat.core import cntk_rng
    saved = dict(cntk_rng._seed_state)
    try:
        yield
    finally:
        cntk_rng._seed_state.update(saved)


@pytest.fixture(autouse=True)
def _isolated_automatic_random_seeds():
    with isolated_automatic_random_seeds():
        yield


def _device_announced_before_tests():
    """CNTK says once per process, on stderr, which device it selected ("Selected CPU as the process wide default
    device."); tests that compare stderr would see that line only in whichever test happens to be first, so it is
    taken as said here (tests/core/test_default_device_announcement.py checks it in fresh processes)."""
    from cntk_compat.core import device
    device._announced[0] = True


_device_announced_before_tests()


@pytest.fixture(autouse=True)
def _isolated_default_device():
    """A test that sets CNTK's default device (try_set_default_device) leaves it as it found it: on a machine
    with a GPU the later tests' models and data would otherwise land on different devices."""
    from cntk_compat.core import device
    saved = device._default[0]
    yield
    device._default[0] = saved


@pytest.fixture
def fresh_automatic_seeds():
    """Automatic seeds counting from 0, as in a fresh CNTK process (tests whose golden values CNTK 2.7 drew so)."""
    from cntk_compat.core import cntk_rng
    cntk_rng.reset_random_seed(0)
