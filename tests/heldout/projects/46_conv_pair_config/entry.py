import jax.numpy as jnp

import conv_kernel


def run():
    x = jnp.arange(1 * 8 * 8 * 128, dtype=jnp.float32).reshape(1, 8, 8, 128) / 4096
    w = jnp.ones((1, 1, 128, 128), jnp.float32) / 128
    return conv_kernel.conv1x1(x, w)
