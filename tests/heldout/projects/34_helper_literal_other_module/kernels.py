import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from linalg import mm


def _two_layer(x_ref, w1_ref, w2_ref, o_ref):
    h = jnp.maximum(mm(x_ref[...], w1_ref[...]), 0.0)
    o_ref[...] = mm(h, w2_ref[...])


def two_layer(x, w1, w2):
    return pl.pallas_call(
        _two_layer,
        out_shape=jax.ShapeDtypeStruct((x.shape[0], w2.shape[1]), x.dtype),
        compiler_params=pltpu.CompilerParams(),
    )(x, w1, w2)
