"""Helpers and tables the kernels share."""
import jax
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


ACTIVATIONS = {
    "elu": jax.nn.elu,
    "atan": jnp.arctan,
    "relu": jax.nn.relu,
}


def take_rows(v, i):
    return lax.dynamic_slice(v, (i * 8, 0), (8, v.shape[1]))


def softplus_inverse(x):
    return jnp.log(expm1_tpu(x))
