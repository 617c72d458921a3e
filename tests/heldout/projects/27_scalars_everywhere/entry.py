import jax.numpy as jnp

import blocks
from blocks.mlp import mlp


def run():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 1024
    w = jnp.eye(128, dtype=jnp.float32)
    h = mlp(x, w, precision=blocks.MLP_PRECISION)
    return mlp(h, w, precision=blocks.ATTN_PRECISION, preferred_element_type=jnp.float32)
