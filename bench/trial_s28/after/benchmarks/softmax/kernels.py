import jax.numpy as jnp
from jax import lax

import config
from jax.experimental.pallas import tpu as pltpu


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


def expm1_tpu(x):
    """`jnp.expm1(x)` from exp, which Pallas Mosaic TPU kernels lower (expm1 they do not:
    "Unimplemented primitive in Pallas TPU lowering for tc: expm1"). Near 0, exp(x) - 1 loses
    every digit: a Taylor series there. Added by jax-codemod (JAX007).
    """
    series = x * (1.0 + x / 2.0 * (1.0 + x / 3.0 * (1.0 + x / 4.0 * (1.0 + x / 5.0 * (
        1.0 + x / 6.0 * (1.0 + x / 7.0 * (1.0 + x / 8.0 * (1.0 + x / 9.0))))))))
    return jnp.where(jnp.abs(x) < 0.5, series, jnp.exp(x) - 1.0)


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


def body_kernel(q_ref, k_ref, o_ref):
    o_ref[...] = jnp.dot(q_ref[...], k_ref[...], precision=config.PAIR)


def softmax_kernel(x_ref, o_ref, **hint):
    x = x_ref[...]
    e = lax.exp(x - jnp.max(x, axis=-1, keepdims=True), **hint)
    o_ref[...] = e / jnp.sum(e, axis=-1, keepdims=True)


def tail_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = cumsum_tpu(expm1_tpu(x) * 0.5, -1) + erfc_tpu(x)
