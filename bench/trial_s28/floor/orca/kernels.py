"""The library's Pallas TPU kernels."""
import jax.numpy as jnp
from jax import lax


def expm1_tpu(x):
    """`jnp.expm1(x)` from exp, which Pallas Mosaic TPU kernels lower (expm1 they do not:
    "Unimplemented primitive in Pallas TPU lowering for tc: expm1"). Near 0, exp(x) - 1 loses
    every digit: a Taylor series there. Added by jax-codemod (JAX007).
    """
    series = x * (1.0 + x / 2.0 * (1.0 + x / 3.0 * (1.0 + x / 4.0 * (1.0 + x / 5.0 * (
        1.0 + x / 6.0 * (1.0 + x / 7.0 * (1.0 + x / 8.0 * (1.0 + x / 9.0))))))))
    return jnp.where(jnp.abs(x) < 0.5, series, jnp.exp(x) - 1.0)


def mm_kernel(x_ref, w_ref, o_ref, *, precision, scale=1.0):
    o_ref[...] = scale * jnp.dot(x_ref[...], w_ref[...], precision=precision)


def act_kernel(x_ref, o_ref, **hint):
    x = x_ref[...]
    o_ref[...] = x * lax.logistic(x, **hint)


def gate_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = expm1_tpu(x) * jnp.arctan2(x, 1.0)
