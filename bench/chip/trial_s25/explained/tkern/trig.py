"""Angle kernels: refs named as the values they hold."""
import jax.numpy as jnp


def sinh_tpu(x):
    """`jnp.sinh(x)` from exp, which Pallas Mosaic TPU kernels lower (sinh they do not). A Taylor
    series near 0, where exp(x) - exp(-x) cancels; e^|x| / 2 taken as exp(|x| - log 2), so that it
    overflows where sinh does. Added by jax-codemod (JAX007).
    """
    half = jnp.exp(jnp.abs(x) - 0.6931471805599453)
    x2 = x * x
    series = x * (1.0 + x2 / 6.0 * (1.0 + x2 / 20.0 * (1.0 + x2 / 42.0 * (1.0 + x2 / 72.0))))
    away = half - 0.25 / half
    return jnp.where(jnp.abs(x) < 0.5, series, jnp.where(x < 0, -away, away))


def make_wrap_kernel(period):
    def wrap(x, o):
        o[...] = jnp.arctan2(x[...] / period, 1.0)

    return wrap


class Hyperbolic:
    def __init__(self, gain=1.0):
        self.gain = gain

    def sinh_kernel(self, x, o):
        o[...] = self.gain * sinh_tpu(x[...])
