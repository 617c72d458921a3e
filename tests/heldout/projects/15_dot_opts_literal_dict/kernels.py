import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from numerics import _DOT_OPTS


def _ffn(x_ref, w_ref, o_ref):
    h = jnp.dot(x_ref[...], w_ref[...], **_DOT_OPTS)  # wall
    o_ref[...] = jnp.maximum(h, 0.0)


def ffn(x, w):
    return pl.pallas_call(
        _ffn,
        out_shape=jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), jnp.float32),
        compiler_params=pltpu.CompilerParams(),
    )(x, w)
