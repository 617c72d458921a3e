from jax import lax

EXP_OPTS = {"accuracy": lax.AccuracyMode.HIGHEST}  # value
