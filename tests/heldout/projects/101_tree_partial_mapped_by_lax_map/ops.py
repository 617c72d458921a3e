import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

import kernels


def rows(x, w, *, scale, precision=None):
    body = jax.tree_util.Partial(kernels.scaled_rows, scale=scale, precision=precision)
    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), jnp.float32))(x, w)
