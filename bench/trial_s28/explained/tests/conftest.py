import numpy as np
import pytest


@pytest.fixture
def x():
    return np.random.RandomState(0).uniform(-2, 2, (8, 128)).astype(np.float32)
