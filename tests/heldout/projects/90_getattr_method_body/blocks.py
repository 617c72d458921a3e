import jax.numpy as jnp


class Activations:
    def sinh(self, x_ref, o_ref):
        o_ref[...] = jnp.sinh(x_ref[...])  # wall

    def relu(self, x_ref, o_ref):
        o_ref[...] = jnp.maximum(x_ref[...], 0.0)
