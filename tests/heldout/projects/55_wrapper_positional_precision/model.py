from jax import lax

from ops import matmul

_P = (lax.Precision.HIGH, lax.Precision.HIGHEST)  # value


def head(x, w):
    return matmul(x, w, _P)
