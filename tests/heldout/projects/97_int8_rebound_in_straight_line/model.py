import functools

import jax
from jax.experimental import pallas as pl

import kernels


def row_peaks(x, scale=4.0):
    body = functools.partial(kernels.row_peak_kernel, scale=scale)
    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
