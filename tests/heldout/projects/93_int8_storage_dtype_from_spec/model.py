import functools

import jax
from jax.experimental import pallas as pl

import kernels
from spec import INT8


def row_peaks(x, spec=INT8):
    body = functools.partial(kernels.row_peak_kernel, scale=spec.scale, storage=spec.storage_dtype)
    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
