"""Plain XLA twins of the kernels, for the tests: nothing here runs in a kernel."""
import jax
import jax.numpy as jnp
from jax import lax

from lumen import config


def rms_ref(x):
    ms = jnp.mean(x * x, axis=-1, keepdims=True)
    return x * lax.rsqrt(ms + config.NORM.eps, accuracy=config.NORM.accuracy)


def mm_ref(x, w):
    return jnp.matmul(x, w, precision=config.CFG.precision)


def softplus_ref(x):
    return lax.log1p(lax.exp(-jnp.abs(x)), accuracy=lax.Tolerance(atol=1e-6, rtol=0.0, ulps=4)) + jnp.maximum(x, 0.0)


def tanh_ref(x):
    return lax.tanh(x, accuracy=lax.AccuracyMode.HIGHEST)


def scale_ref(params):
    return jax.tree.map(lambda p: p / jnp.product(jnp.array(p.shape)), params)
