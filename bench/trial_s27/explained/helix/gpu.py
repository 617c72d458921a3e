"""Mosaic GPU kernels and their XLA twin."""
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def rsqrt_safe(x):
    """`lax.rsqrt(x)` with float32 accuracy, in a form Pallas Mosaic kernels can lower.

    Mosaic GPU and Mosaic TPU reject `lax.rsqrt(x, accuracy=...)` ("Not implemented: accuracy"),
    and Mosaic GPU may lower a plain rsqrt to an approximation. One Newton-Raphson step on it
    keeps the accuracy the hint asked for (within 1 ulp of the exact result); zero, negative,
    infinite and NaN inputs keep rsqrt's own inf, NaN, 0 and NaN, as XLA gives them.
    Added by jax-codemod (JAX002).
    """
    y = lax.rsqrt(x)
    # (x * y) * y rather than 0.5 * x * y * y: halving a tiny x first underflows.
    refined = y + 0.5 * y * (1.0 - (x * y) * y)
    return lax.select((y > 0) & (y < float("inf")), refined, y)


EPS = 1e-6


def _rms_kernel(x_ref, o_ref):
    @pl.loop(0, x_ref.shape[0])
    def _row(row):
        x = x_ref[row]
        o_ref[row] = x * rsqrt_safe(jnp.mean(x * x) + EPS)


def rms_gpu(x):
    return plgpu.kernel(_rms_kernel, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


def rms_xla(x):
    return x * lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + EPS, accuracy=lax.AccuracyMode.HIGHEST)


def _gelu_kernel(x_ref, o_ref):
    def body(row, carry):
        v = x_ref[row]
        o_ref[row] = 0.5 * v * (1.0 + lax.tanh(v * 0.7978845608))
        return carry

    lax.fori_loop(0, x_ref.shape[0], body, 0)


def gelu_gpu(x):
    return plgpu.kernel(_gelu_kernel, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
