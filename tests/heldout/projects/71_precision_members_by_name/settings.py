from jax import lax

QK_PRECISION = (lax.Precision["DEFAULT"], lax.Precision["HIGHEST"])  # value
