import jax.numpy as jnp
from jax import lax

from base import MatmulOp


class MixedPrecisionMatmul(MatmulOp):
    def body(self, x_ref, w_ref, o_ref):
        o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))  # wall
