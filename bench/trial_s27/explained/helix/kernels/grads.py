"""The forward and backward kernels of helix's custom derivatives."""
import jax.numpy as jnp
from jax import lax


def proj_fwd_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...])


def proj_bwd_kernel(g_ref, w_ref, dx_ref, *, precision):
    dx_ref[...] = lax.dot_general(g_ref[...], w_ref[...], (((1,), (1,)), ((), ())), precision=precision)


def swish_fwd_kernel(x_ref, o_ref, s_ref):
    s = lax.logistic(x_ref[...])
    s_ref[...] = s
    o_ref[...] = x_ref[...] * s


def swish_bwd_kernel(x_ref, s_ref, g_ref, dx_ref):
    s = s_ref[...]
    dx_ref[...] = g_ref[...] * (s + x_ref[...] * s * (1.0 - s))


def tangent_kernel(tx_ref, w_ref, o_ref, precision=lax.Precision.HIGHEST):
    o_ref[...] = jnp.dot(tx_ref[...], w_ref[...], precision=precision)
