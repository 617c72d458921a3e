import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from numerics import Numerics


def _kernel(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=Numerics.MATMUL)  # wall


def matmul(x, w):
    return pl.pallas_call(
        _kernel,
        out_shape=jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), x.dtype),
        compiler_params=pltpu.CompilerParams(),
    )(x, w)
