import jax
from jax.experimental import pallas as pl

from bodies import scaled_dot


def scaled_matmul(x, w):
    return pl.pallas_call(scaled_dot, out_shape=jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), x.dtype))(x, w)
