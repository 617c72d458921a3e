import jax
from jax.experimental import pallas as pl

from kernels import build_rowmax


def quantized_max(x):
    kernel = build_rowmax(0)
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
