import jax.numpy as jnp

import scoring


def run():
    x = jnp.linspace(-1.0, 1.0, 8 * 128, dtype=jnp.float32).reshape(8, 128)
    return scoring.hits_above(x)
