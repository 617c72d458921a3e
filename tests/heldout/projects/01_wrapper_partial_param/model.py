"""The model: activations in bf16-friendly DEFAULT, weights at full precision."""
from jax import lax

import ops

ACT_WEIGHT_PRECISION = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)


def project(x, w):
    return ops.matmul(x, w, precision=ACT_WEIGHT_PRECISION)
