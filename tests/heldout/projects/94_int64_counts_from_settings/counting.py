"""Kernels that count, per row block."""
import jax.numpy as jnp


def above_kernel(x_ref, o_ref, *, threshold, count_dtype):
    hits = (x_ref[...] > threshold).astype(count_dtype)
    total = jnp.zeros(o_ref.shape, count_dtype) + hits
    o_ref[...] = total.astype(o_ref.dtype)
