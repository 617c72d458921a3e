import jax.numpy as jnp

import ops


def dense(x, w, b=None, **matmul_kwargs):
    y = ops.matmul(x, w, **matmul_kwargs)
    return y if b is None else y + b


def mlp(x, w1, w2, **matmul_kwargs):
    return dense(jnp.maximum(dense(x, w1, **matmul_kwargs), 0.0), w2, **matmul_kwargs)
