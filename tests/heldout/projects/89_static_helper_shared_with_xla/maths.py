import jax.numpy as jnp


class Smooth:
    @staticmethod
    def apply(x):
        return jnp.sinh(x) * 0.5  # wall
