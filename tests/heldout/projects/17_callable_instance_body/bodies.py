import jax.numpy as jnp
from jax import lax


class ScaledDot:
    """A kernel body with its own constants."""

    def __init__(self, scale):
        self.scale = scale

    def __call__(self, x_ref, w_ref, o_ref):
        acc = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.HIGH, lax.Precision.HIGHEST))  # wall
        o_ref[...] = self.scale * acc


scaled_dot = ScaledDot(0.5)
