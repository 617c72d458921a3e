import jax.numpy as jnp

import ops
import settings


def run():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 1024
    w = jnp.eye(128, dtype=jnp.float32)
    return ops.matmul(x, w, **settings.MATMUL_OPTIONS)
