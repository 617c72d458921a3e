import jax
from jax.experimental import pallas as pl

from blocks import Activations


def activate(x, kind="sinh"):
    body = getattr(Activations(), kind)
    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
