import functools

import jax.numpy as jnp


def build_rowmax(axis):
    def _rowmax_kernel(x_ref, o_ref, *, axis):
        q = x_ref[...].astype(jnp.int8)
        m = jnp.max(q, axis=axis, keepdims=True)  # wall
        o_ref[...] = jnp.broadcast_to(m, o_ref.shape).astype(o_ref.dtype)

    return functools.partial(_rowmax_kernel, axis=axis)
