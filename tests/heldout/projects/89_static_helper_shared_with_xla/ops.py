import jax
from jax.experimental import pallas as pl

from maths import Smooth


def _smooth_kernel(x_ref, o_ref):
    o_ref[...] = Smooth.apply(x_ref[...])


def smooth(x):
    return pl.pallas_call(_smooth_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
