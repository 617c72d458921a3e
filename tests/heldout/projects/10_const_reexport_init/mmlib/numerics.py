from jax import lax

DOT_PRECISION = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)  # value
