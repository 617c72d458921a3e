import jax.numpy as jnp

import model


def _inputs():
    xs = (jnp.arange(2 * 8 * 128, dtype=jnp.float32).reshape(2, 8, 128) % 13 - 6) / 7.0
    w = (jnp.arange(128 * 128, dtype=jnp.float32).reshape(128, 128) % 11 - 5) / 9.0
    return xs, w


def run():
    return model.batched_proj(*_inputs())


def reference():
    return model.batched_ref(*_inputs())
