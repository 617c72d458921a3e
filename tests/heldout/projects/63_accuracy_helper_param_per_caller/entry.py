import jax.numpy as jnp

import kernels
import reference as ref


def _x():
    return jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 1024 - 0.5


def run():
    return kernels.act(_x())


def reference():
    return ref.act_reference(_x())
