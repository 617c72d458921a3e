from jax import lax

KERNEL_PRECISION = lax.Precision.HIGHEST
REFERENCE_PRECISION = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)
