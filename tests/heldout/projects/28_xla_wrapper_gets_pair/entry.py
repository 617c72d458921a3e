import jax.numpy as jnp

import model


def _inputs():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 1024
    return x, jnp.eye(128, dtype=jnp.float32)


def run():
    return model.forward_tpu(*_inputs())


def reference():
    return model.forward_xla(*_inputs())
