import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def _rms_kernel(x_ref, o_ref, *, accuracy, eps):
    x = x_ref[...]
    o_ref[...] = x * lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps, accuracy=accuracy)  # wall


def rms_norm(x, eps=1e-6, accuracy=None):
    return pl.pallas_call(
        functools.partial(_rms_kernel, accuracy=accuracy, eps=eps),
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        compiler_params=pltpu.CompilerParams(),
    )(x)
