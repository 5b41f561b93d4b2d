"""Shared test fixtures."""
import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _isolated_numpy_print_options():
    """Seed cells call np.set_printoptions (e.g. precision=4); keep that from leaking into later tests."""
    saved = np.get_printoptions()
    yield
    np.set_printoptions(**saved)
