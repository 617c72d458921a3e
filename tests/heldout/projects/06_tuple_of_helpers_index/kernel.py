import jax
from jax.experimental import pallas as pl

import variants


def body(x_ref, w_ref, o_ref):
    o_ref[...] = variants.DOT_VARIANTS[1](x_ref[...], w_ref[...])


def apply(x, w):
    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), x.dtype))(x, w)
