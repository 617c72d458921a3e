"""Pallas kernels of the int8 scorer: the inputs come quantised."""
import jax.numpy as jnp


def row_peak_kernel(q_ref, o_ref):
    peak = jnp.max(q_ref[...], axis=-1, keepdims=True)
    o_ref[...] = jnp.broadcast_to(peak.astype(jnp.float32), o_ref.shape)
