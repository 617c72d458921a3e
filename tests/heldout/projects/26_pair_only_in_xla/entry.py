import jax.numpy as jnp

import kernels
import reference as ref


def _inputs():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 1024
    return x, jnp.eye(128, dtype=jnp.float32)


def run():
    return kernels.matmul(*_inputs())


def reference():
    return ref.matmul(*_inputs())
