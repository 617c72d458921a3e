import jax.numpy as jnp

import kernels
import reference as ref


def _inputs():
    return jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 1024 + 0.5


def run():
    return kernels.pointwise(_inputs())


def reference():
    return ref.reference(_inputs())
