import jax.numpy as jnp

import build


def run():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 1024
    return build.make_dense()(x, jnp.eye(128, dtype=jnp.float32))
