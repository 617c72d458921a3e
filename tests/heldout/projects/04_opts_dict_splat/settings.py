from jax import lax

MATMUL_OPTIONS = {"precision": (lax.Precision.DEFAULT, lax.Precision.HIGHEST)}  # value
