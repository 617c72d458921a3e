"""XLA versions to compare against (this folder's ops, not orca.ops)."""
import jax.numpy as jnp
from jax import lax

import config


def softmax_xla(x):
    e = lax.exp(x - jnp.max(x, axis=-1, keepdims=True), accuracy=config.TOL)
    return e / jnp.sum(e, axis=-1, keepdims=True)


def body_xla(q, k):
    return jnp.dot(q, k, precision=lax.Precision.HIGHEST)
