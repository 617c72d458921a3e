import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from opts import TANH_OPTS


def _gelu_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = 0.5 * x * (1.0 + lax.tanh(0.7978845608 * (x + 0.044715 * x * x * x), **TANH_OPTS))  # wall


def gelu(x):
    return pl.pallas_call(_gelu_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
