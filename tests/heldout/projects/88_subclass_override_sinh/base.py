import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


class Activation:
    def kernel(self, x_ref, o_ref):
        o_ref[...] = jnp.maximum(x_ref[...], 0.0)

    def __call__(self, x):
        return pl.pallas_call(self.kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
