import jax
import numpy as np

from helix import legacy, ops


def test_swish_grad_finite():
    x = np.linspace(-2, 2, 8 * 128, dtype=np.float32).reshape(8, 128)
    with jax.default_device(jax.devices("cpu")[0]):
        assert np.isfinite(jax.grad(lambda a: ops.swish(a).sum())(x)).all()


def test_structure():
    assert legacy.structure({"a": 1, "b": (2, 3)}).num_leaves == 3
