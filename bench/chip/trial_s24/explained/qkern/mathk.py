"""Activation kernels."""
import jax.numpy as jnp

from qkern.tables import softplus_inverse
from jax.experimental.pallas import tpu as pltpu
from jax import lax


def erfc_tpu(x):
    """`lax.erfc(x)` from exp, which Pallas Mosaic TPU kernels lower (erfc they do not:
    "Unimplemented primitive in Pallas TPU lowering for tc: erfc"). 1 - erf(x) loses every digit
    for large x; this Chebyshev fit (Numerical Recipes' erfcc) keeps a relative error below 1e-6
    up to x = 3, and below 1e-5 where erfc is a normal float32. Added by jax-codemod (JAX007).
    """
    z = jnp.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))))
    tail = t * jnp.exp(poly)
    return jnp.where(x >= 0, tail, 2.0 - tail)


def cumsum_tpu(x, axis):
    """`jnp.cumsum(x, axis)` as log2(n) rolls and adds (a Hillis-Steele scan), which Pallas Mosaic
    TPU kernels lower (cumsum they do not). Exact for integers; floats are summed in another order.
    Added by jax-codemod (JAX007).
    """
    axis = axis % x.ndim
    index = lax.broadcasted_iota(jnp.int32, x.shape, axis)
    shift = 1
    while shift < x.shape[axis]:
        x = x + jnp.where(index >= shift, pltpu.roll(x, shift, axis), 0)
        shift *= 2
    return x


def atan_kernel(x_ref, o_ref):
    o_ref[...] = jnp.arctan2(x_ref[...], 1.0)


def act_kernel(x_ref, o_ref, *, act):
    o_ref[...] = act(x_ref[...])


def spinv_kernel(x_ref, o_ref):
    o_ref[...] = softplus_inverse(x_ref[...] + 1.0)


def cumsum_kernel(x_ref, o_ref, *, axis):
    o_ref[...] = cumsum_tpu(x_ref[...], axis)


def erfc_kernel(x_ref, o_ref, **kw):
    scale = kw.get("scale", 1.0)
    o_ref[...] = erfc_tpu(x_ref[...] * scale)
