import jax.numpy as jnp

import model


def run():
    xs = (jnp.arange(2 * 8 * 128, dtype=jnp.float32).reshape(2, 8, 128) % 13 - 6) / 7.0
    w = (jnp.arange(128 * 128, dtype=jnp.float32).reshape(128, 128) % 11 - 5) / 9.0
    return model.stacked_rows(xs, w)
