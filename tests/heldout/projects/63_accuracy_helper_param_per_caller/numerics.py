from jax import lax

KERNEL_ACC = lax.AccuracyMode.HIGHEST  # value
REFERENCE_ACC = lax.AccuracyMode.HIGHEST
