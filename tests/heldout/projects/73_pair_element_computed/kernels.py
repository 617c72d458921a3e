import jax.numpy as jnp
from jax import lax

import settings


def qk_kernel(q_ref, k_ref, o_ref):
    o_ref[...] = jnp.dot(q_ref[...], k_ref[...], precision=(lax.Precision.DEFAULT, settings.LEVEL))  # wall
