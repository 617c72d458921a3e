import jax.numpy as jnp
from jax import lax


def even_kernel(x_ref, o_ref):
    cols = lax.broadcasted_iota(jnp.int64, x_ref.shape, 1)
    o_ref[...] = jnp.where(cols % 2 == 0, x_ref[...], 0.0)


def argmin_kernel(x_ref, o_ref):
    idx = jnp.argmin(x_ref[...], axis=-1)
    o_ref[...] = jnp.broadcast_to(idx[:, None], o_ref.shape).astype(o_ref.dtype)
