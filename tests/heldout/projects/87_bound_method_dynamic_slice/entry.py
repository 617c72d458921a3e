import jax.numpy as jnp

import ops


def _inputs():
    return jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128) / 1024


def run():
    return ops.window(_inputs())
