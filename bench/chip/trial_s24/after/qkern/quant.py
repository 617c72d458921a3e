"""Int8/int16 kernels of the quantised path."""
import jax.numpy as jnp


def rowmax_kernel(x_ref, o_ref):
    q = x_ref[...].astype(jnp.int8)
    m = jnp.max(q.astype(jnp.int32), axis=1, keepdims=True).astype(jnp.int8)
    o_ref[...] = jnp.broadcast_to(m, o_ref.shape).astype(jnp.int32)


def rowmax_as(x_ref, o_ref, *, dtype):
    q = x_ref[...].astype(dtype)
    m = jnp.max(q.astype(jnp.int32), axis=1, keepdims=True).astype(jnp.int8)
    o_ref[...] = jnp.broadcast_to(m, o_ref.shape).astype(jnp.int32)


def rowmax_raw(x_ref, o_ref):
    m = jnp.max(x_ref[...], axis=1, keepdims=True)
    o_ref[...] = jnp.broadcast_to(m, o_ref.shape).astype(jnp.int32)


def shift16_kernel(x_ref, o_ref):
    q = x_ref[...].astype(jnp.int16)
    o_ref[...] = ((q.astype(jnp.int32) >> 3).astype(jnp.int16)).astype(jnp.int32)


def add8_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = a_ref[...] + b_ref[...]
