import functools

import jax
from jax.experimental import pallas as pl

from ops import OPS


def _pointwise_kernel(x_ref, o_ref, *, op):
    o_ref[...] = op(x_ref[...])


def pointwise(x, name="rsqrt"):
    kernel = functools.partial(_pointwise_kernel, op=OPS[name])
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
