from jax import lax

MODE = "PRECISE"
PRECISE_OPTS = {"accuracy": lax.AccuracyMode.HIGHEST}  # value
FAST_OPTS = {}
