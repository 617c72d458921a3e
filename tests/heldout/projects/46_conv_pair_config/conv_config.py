from jax import lax

CONV_PRECISION = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)  # value
DIMENSION_NUMBERS = ("NHWC", "HWIO", "NHWC")
