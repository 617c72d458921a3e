from jax import lax


def log1p_hi(x):
    return lax.log1p(x, accuracy=lax.AccuracyMode.HIGHEST)  # wall, value
