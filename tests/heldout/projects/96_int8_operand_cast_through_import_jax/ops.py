import jax
from jax.experimental import pallas as pl

import kernels


def row_peaks(x):
    q = jax.numpy.clip(x * 8.0, -127, 127).astype(jax.numpy.int8)
    return pl.pallas_call(kernels.row_peak_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, jax.numpy.float32))(q)
