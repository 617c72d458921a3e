import functools

from jax import lax

LOG_HI = functools.partial(lax.log, accuracy=lax.AccuracyMode.HIGHEST)  # wall, value
