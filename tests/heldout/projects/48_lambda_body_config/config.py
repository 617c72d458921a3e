from jax import lax

PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)  # value
