"""Kernel factories: each returns a body closed over its settings."""
import jax.numpy as jnp
from jax import lax
from jax.lax import AccuracyMode


def make_rms_kernel(eps):
    def rms_kernel(x_ref, o_ref):
        x = x_ref[...]
        ms = jnp.mean(x * x, axis=-1, keepdims=True)
        o_ref[...] = x * lax.rsqrt(ms + eps, accuracy=AccuracyMode.HIGHEST)

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
