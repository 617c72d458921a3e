import jax.numpy as jnp

import model


def _x():
    return jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 1024 - 0.5


def run():
    return model.squash(_x())


def reference():
    return model.squash_reference(_x())
