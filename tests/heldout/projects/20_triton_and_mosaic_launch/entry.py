import jax.numpy as jnp

import tpu_ops


def run():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 1024
    return tpu_ops.matmul_tpu(x, jnp.eye(128, dtype=jnp.float32))
