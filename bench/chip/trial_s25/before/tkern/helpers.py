"""Matmul helpers shared by the kernels and the plain-XLA reference."""
import jax.numpy as jnp


def mm(a, b, **kw):
    return jnp.dot(a, b, **kw)


def mm_acc(a, b, **kw):
    return mm(a, b, preferred_element_type=jnp.float32, **kw)
