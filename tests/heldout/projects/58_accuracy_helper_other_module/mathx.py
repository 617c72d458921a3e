from jax import lax


def precise_exp(x):
    return lax.exp(x, accuracy=lax.AccuracyMode.HIGHEST)  # wall


def precise_log(x):
    return lax.log(x, accuracy=lax.AccuracyMode.HIGHEST)
