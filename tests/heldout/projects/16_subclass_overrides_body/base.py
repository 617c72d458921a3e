import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


class MatmulOp:
    """Launches `self.body`; subclasses choose the math."""

    def body(self, x_ref, w_ref, o_ref):
        o_ref[...] = jnp.dot(x_ref[...], w_ref[...])

    def __call__(self, x, w):
        return pl.pallas_call(
            self.body,
            out_shape=jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), x.dtype),
            compiler_params=pltpu.CompilerParams(),
        )(x, w)
