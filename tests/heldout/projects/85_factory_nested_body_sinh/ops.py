import jax
from jax.experimental import pallas as pl

import kernels


def scaled_sinh(x, scale=2.0):
    return pl.pallas_call(
        kernels.make_activation_kernel(scale),
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
    )(x)
