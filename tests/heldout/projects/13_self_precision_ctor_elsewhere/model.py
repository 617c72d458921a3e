from jax import lax

from blocks import Projection


def build(w):
    return Projection(w, precision=(lax.Precision.HIGHEST, lax.Precision.DEFAULT))  # value
