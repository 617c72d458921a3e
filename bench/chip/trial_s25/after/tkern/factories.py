"""Kernel factories: each returns a body closed over its settings."""
import jax.numpy as jnp
from jax import lax


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


def make_rms_kernel(eps):
    def rms_kernel(x_ref, o_ref):
        x = x_ref[...]
        ms = jnp.mean(x * x, axis=-1, keepdims=True)
        o_ref[...] = x * rsqrt_safe(ms + eps)

    return rms_kernel


def make_proj_kernel(precision):
    def proj_kernel(x_ref, w_ref, o_ref):
        o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)

    return proj_kernel


def make_gelu_kernel(**act_kw):
    def gelu_kernel(x_ref, o_ref):
        x = x_ref[...]
        inner = 0.7978845608 * (x + 0.044715 * x * x * x)
        o_ref[...] = 0.5 * x * (1.0 + lax.tanh(inner, **act_kw))

    return gelu_kernel


def make_angle_kernel(scale=1.0):
    def angle_kernel(x_ref, o_ref):
        o_ref[...] = jnp.arctan(x_ref[...] * scale)

    return angle_kernel
