from jax import lax

MIXED = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)  # value
