import jax.numpy as jnp

import data
import model


def run():
    return model.encode(*data.inputs())


def reference():
    y = jnp.ones((2, 5, data.HIDDEN), jnp.float32) / 3
    return model.head(y, jnp.eye(data.HIDDEN, dtype=jnp.float32))
