from jax import lax

PRECISIONS = {
    "fast": lax.Precision.DEFAULT,
    "balanced": (lax.Precision.DEFAULT, lax.Precision.HIGHEST),  # value
    "exact": lax.Precision.HIGHEST,
}
