"""Tolerances (a third `utils` module: tests/ is its own import root)."""
import numpy as np


def close(a, b, tol=1e-5):
    return np.allclose(np.asarray(a), np.asarray(b), atol=tol)
