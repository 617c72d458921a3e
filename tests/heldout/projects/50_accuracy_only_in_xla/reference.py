from jax import lax

from numerics import REF_ACCURACY


def exp(x, accuracy=REF_ACCURACY):
    return lax.exp(x, accuracy=accuracy)
