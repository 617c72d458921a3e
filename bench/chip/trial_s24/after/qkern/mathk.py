"""Activation kernels."""
import jax
import jax.numpy as jnp

from qkern.tables import softplus_inverse


def atan_kernel(x_ref, o_ref):
    o_ref[...] = jnp.arctan(x_ref[...])


def act_kernel(x_ref, o_ref, *, act):
    o_ref[...] = act(x_ref[...])


def spinv_kernel(x_ref, o_ref):
    o_ref[...] = softplus_inverse(x_ref[...] + 1.0)


def cumsum_kernel(x_ref, o_ref, *, axis):
    o_ref[...] = jnp.cumsum(x_ref[...], axis=axis)


def erfc_kernel(x_ref, o_ref, **kw):
    scale = kw.get("scale", 1.0)
    o_ref[...] = jax.lax.erfc(x_ref[...] * scale)
