import jax.numpy as jnp

import kernels
import reference as ref


def _x():
    return jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 1024


def run():
    return kernels.softplus_sq(_x())


def reference():
    return ref.softplus_sq_reference(_x())
