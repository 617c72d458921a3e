from jax import lax

TANH_OPTS = {"accuracy": lax.AccuracyMode.HIGHEST}  # value
