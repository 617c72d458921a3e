from jax import lax

SOFTMAX_OPTS = dict(accuracy=lax.AccuracyMode.HIGHEST)  # value
