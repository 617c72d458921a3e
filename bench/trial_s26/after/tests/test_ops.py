import jax
import numpy as np

import lumen
from lumen import reference


def test_mm():
    x = np.ones((8, 128), np.float32)
    np.testing.assert_allclose(lumen.matmul(x, x.T @ x[:, :128]), reference.mm_ref(x, x.T @ x[:, :128]), rtol=1e-5)


def test_argmin_x64():
    from lumen import precise
    with jax.experimental.enable_x64():
        x = np.arange(8 * 128, dtype=np.float32).reshape(8, 128)
        assert (precise.argmin_rows(x) == 0).all()
