from jax import lax

from layers import Proj


def build(w):
    return Proj.with_precision(w, (lax.Precision.HIGH, lax.Precision.HIGHEST))  # value
