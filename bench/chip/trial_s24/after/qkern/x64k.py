"""Kernels the x64 model launches (x64 is turned on in models/x64model.py)."""
import jax.numpy as jnp
from jax import lax


def argbest_kernel(x_ref, o_ref):
    best = lax.argmax(x_ref[...], 1, jnp.int32)
    o_ref[...] = jnp.broadcast_to(best[:, None], o_ref.shape).astype(jnp.float32)


def count_kernel(x_ref, o_ref, *, acc_dtype):
    acc = jnp.zeros(o_ref.shape, dtype=jnp.int32)
    acc = acc + (x_ref[...] > 0).astype(jnp.int32)
    o_ref[...] = acc.astype(jnp.float32)
