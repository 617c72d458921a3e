import jax.numpy as jnp

import dispatch


def run():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 1024
    return dispatch.matmul(x, jnp.eye(128, dtype=jnp.float32), flavour="mixed")
