"""Kernels the x64 model launches (x64 is turned on in models/x64model.py)."""
import jax.numpy as jnp
from jax import lax


def argmax_tpu(x, axis, keepdims=False):
    """`jnp.argmax(x, axis, keepdims=keepdims)` with int32 indices, in a form Pallas Mosaic TPU
    kernels lower under x64 (jnp.argmax's int64 index they reject). Where elements tie, the first,
    as jnp.argmax returns: Mosaic TPU's own argmax returns the last (jax issue #34620). A NaN counts
    as the maximum, as in XLA. Added by jax-codemod (JAX005).
    """
    hit = (x == jnp.max(x, axis=axis, keepdims=True)) | (x != x)
    index = lax.broadcasted_iota(jnp.int32, x.shape, axis % x.ndim)
    return jnp.min(jnp.where(hit, index, x.shape[axis]), axis=axis, keepdims=keepdims)


def argbest_kernel(x_ref, o_ref):
    best = argmax_tpu(x_ref[...], 1)
    o_ref[...] = jnp.broadcast_to(best[:, None], o_ref.shape).astype(jnp.float32)


def count_kernel(x_ref, o_ref, *, acc_dtype):
    acc = jnp.zeros(o_ref.shape, dtype=jnp.int32)
    acc = acc + (x_ref[...] > 0).astype(jnp.int32)
    o_ref[...] = acc.astype(jnp.float32)
