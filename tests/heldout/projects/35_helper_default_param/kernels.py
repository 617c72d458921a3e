import jax
from jax.experimental import pallas as pl

import linalg


def _kernel(x_ref, w_ref, o_ref):
    o_ref[...] = linalg.mm(x_ref[...], w_ref[...])


def matmul(x, w):
    return pl.pallas_call(_kernel, out_shape=jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), x.dtype))(x, w)
